import { ReleaseClockTable, withinZonedBudget, type FrequencyPolicy } from '@herald/core/frequency';
import { systemClock, type AttributeIndex, type Clock, type FrequencyCounter } from '@herald/core/ports';
import { TZ_KEY_PREFIX } from '@herald/core/targeting';
import { valuePerPosition } from '../user-zones';
import type { RecipientFilter } from './filter';
import { keepInSlices } from './slices';

/** What the frequency filter needs: the policy, the counter every dispatcher and executor shares, and the time. */
export interface FrequencySource {
  policy: FrequencyPolicy;
  counter: FrequencyCounter;
  /**
   * The attribute index whose `tz=<zone>` bitsets give each user's zone: a
   * user in one is judged on their own local day. Without it, or for a user
   * in none, the policy's fixed `utcOffsetMinutes`.
   */
  index?: AttributeIndex;
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
 * starts: each user's local day at that instant picks their count
 * (`counter.used(users, day)`) and their competition window the released
 * slots. A user with a `tz` attribute is on their own zone's day and
 * windows, with the offset in force at that instant (daylight saving
 * followed); a user without one on the policy's fixed offset. The users
 * share a few dozen offsets and at most three local days, so the clocks are
 * built once per offset and the counter is read once per day present in a
 * chunk. The scheduler admits a task only once its send time has come, so
 * that instant is the send time or just after it, never before: a task
 * created at 23:45 for 00:00 is judged at 00:00 against the new day, when
 * almost no user has a slot released yet.
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
 * Reads only: the executors count what they deliver (`consume`), on each
 * user's own local day, so a kept user counts once the broadcast reaches
 * them, online or at login.
 */
export function frequencyFilter(source: FrequencySource): RecipientFilter {
  const clock = source.clock ?? systemClock;
  const chunk = source.readChunk ?? FREQUENCY_READ_CHUNK;
  return {
    name: 'frequency',
    reason: 'over_frequency',
    async apply(uins: Uint32Array) {
      const clocks = new ReleaseClockTable(source.policy, clock.now());
      const clockAt = await clocksPerPosition(uins, clocks, source.index);
      let start = 0;
      return keepInSlices(uins, chunk, async (part) => {
        const at = clockAt.subarray(start, start + part.length);
        start += part.length;
        const days = daysIn(at);
        const used = days.length === 1 ? await source.counter.used(part, days[0]!) : await usedPerDay(part, at, days);
        return withinZonedBudget(part, used, clocks.clocks, at).kept;
      });

      /** The local days of the slice's users (one, two, at most three). */
      function daysIn(at: Uint16Array): number[] {
        const seen = new Uint8Array(clocks.clocks.length);
        for (let i = 0; i < at.length; i++) seen[at[i]!] = 1;
        return [...new Set(clocks.clocks.filter((_, c) => seen[c] === 1).map((c) => c.day))];
      }

      /**
       * Counts read once per local day present in the slice, each over the whole slice: a dense read walks
       * the counter's keys in order, where the users of one day alone (every few zones) would cost a seek each.
       */
      async function usedPerDay(part: Uint32Array, at: Uint16Array, days: number[]): Promise<Uint32Array> {
        const used = new Uint32Array(part.length);
        for (const day of days) {
          const counts = await source.counter.used(part, day);
          for (let i = 0; i < part.length; i++) if (clocks.clocks[at[i]!]!.day === day) used[i] = counts[i]!;
        }
        return used;
      }
    },
  };
}

/** Each position's clock in the table: its uin's zone's, or 0 (the policy's fixed offset) for a uin without a `tz`. */
async function clocksPerPosition(
  uins: Uint32Array,
  clocks: ReleaseClockTable,
  index: AttributeIndex | undefined,
): Promise<Uint16Array> {
  const clockAt = new Uint16Array(uins.length);
  if (index === undefined || uins.length === 0) return clockAt;
  const zoneKeys = await index.keysWithPrefix(TZ_KEY_PREFIX);
  const keyClocks = zoneKeys.map((key) => clocks.indexOf(key.slice(TZ_KEY_PREFIX.length)));
  return valuePerPosition(uins, zoneKeys, keyClocks, index, clockAt);
}
