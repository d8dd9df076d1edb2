import { dayOf, withinBudget, type FrequencyPolicy } from '@herald/core/frequency';
import { systemClock, type Clock, type FrequencyCounter } from '@herald/core/ports';
import type { RecipientFilter } from './filter';
import { keepInSlices } from './slices';

/** What the frequency filter needs: the policy, the counter every dispatcher and executor shares, and the time. */
export interface FrequencySource {
  policy: FrequencyPolicy;
  counter: FrequencyCounter;
  /** Default: the system clock. Tests inject one to walk whole days. */
  clock?: Clock;
  /** Uins per counter read. Default FREQUENCY_READ_CHUNK. */
  readChunk?: number;
}

/** Uins per `counter.used` call: one call per chunk keeps a 10^7 list from being one 40 MB request. */
export const FREQUENCY_READ_CHUNK = 65_536;

/**
 * The per-user daily frequency quota (docs/frequency.md): removes the users
 * with no released, unused slot left at this moment (reason
 * `over_frequency`).
 *
 * The whole task is judged at one instant, `clock.now()` when the filter
 * starts: its local day picks the counts (`counter.used(chunk, dayOf(now))`)
 * and its competition window the released slots. The scheduler admits a task
 * only once its send time has come, so that instant is the send time or just
 * after it, never before: a task created at 23:45 for 00:00 is judged at
 * 00:00 against the new day, when almost no user has a slot released yet.
 *
 * This is what "a task competes only with the tasks sending in the current
 * window" means here: a task can take a slot that is released by the time it
 * is filtered (today's earlier windows' unused slots included), never one of
 * a later window, so sending early takes nothing from the tasks that send
 * later in the day. Within a window, tasks take the released slots in the
 * order they are filtered, which is the scheduler's admission order, by
 * schedule score (docs/scheduling.md): each dispatcher pre-processes one task
 * at a time, in the order the requests came.
 *
 * Reads only: the executors count what they deliver (`consume`), so a kept
 * user counts once the broadcast reaches them, online or at login.
 */
export function frequencyFilter(source: FrequencySource): RecipientFilter {
  const clock = source.clock ?? systemClock;
  const chunk = source.readChunk ?? FREQUENCY_READ_CHUNK;
  return {
    name: 'frequency',
    reason: 'over_frequency',
    async apply(uins: Uint32Array) {
      const now = clock.now();
      const day = dayOf(source.policy, now);
      return keepInSlices(
        uins,
        chunk,
        async (part) => withinBudget(source.policy, part, await source.counter.used(part, day), now).kept,
      );
    },
  };
}
