import type { FilterReason } from '../task/model';
import type { TaskState } from '../task/task-machine';

/** What a login walk did with a user's offline entry of a task. */
export type LoginOutcomeKind = 'delivered' | 'expired' | 'over_frequency';

export interface LoginOutcome {
  taskId: number;
  uin: number;
  outcome: LoginOutcomeKind;
  /** When the walk settled the entry, ms since the epoch. */
  at: number;
}

/** What a recipient's offline entry became. */
export type OfflineThen =
  | { outcome: 'waiting'; until: number }
  | { outcome: 'delivered_at_login'; at: number }
  | { outcome: 'expired'; at: number }
  | { outcome: 'dropped_at_login'; at: number; why: 'expired' | 'over_frequency' }
  | { outcome: 'unknown'; reason: string };

/** One recipient's fate in one task (docs/recipient-truth.md). */
export type Fate =
  | { fate: 'not_in_audience' }
  | { fate: 'removed'; link: FilterReason }
  | { fate: 'delivered_online'; at: number; executor: string; atLogin: false }
  | { fate: 'rejected'; at: number; executor: string; reason: string }
  | { fate: 'queued_offline'; at: number; executor: string; then: OfflineThen }
  | { fate: 'not_reached'; taskState: TaskState; why: string }
  | { fate: 'unknown'; reason: string };

export type RecipientFate = Fate & {
  uin: number;
  /** Its position in the task's filtered list, when it is there (a local-time task's: in its delivery-order list). */
  position?: number;
  /**
   * A local-time task's group holding it (docs/local-time.md): when it is
   * released, under which offset, and while its sending is held for its quiet
   * hours, until when.
   */
  localGroup?: { releaseAt: number; offsetMinutes: number; skipped: boolean; heldUntil?: number };
  /** Extra copies of it the dedupe link removed (its one kept copy has the fate above). */
  duplicateCopiesRemoved?: number;
  /** The content variant it was given (an A/B task, docs/rollouts.md); a held-out recipient has the fate removed by `held_out`. */
  variant?: string;
};

/** Where the filter chain's record puts a uin missing from the filtered list. */
export type RemovalFacts =
  | { recorded: false }
  | { recorded: true; complete: boolean; reason: FilterReason | undefined; duplicateCopies: number };

/** What the delivery record says of one position; `rejected`: the channel's reason, when it rejected it for good. */
export type DeliveryFacts =
  | { kind: 'record'; online: boolean; at: number; executor: string; rejected?: string }
  | { kind: 'none' }
  | { kind: 'unavailable'; reason: string };

export type LoginFacts =
  { kind: 'record'; outcome: LoginOutcome } | { kind: 'none' } | { kind: 'unavailable'; reason: string };

export interface FateFacts {
  uin: number;
  taskState: TaskState;
  expiresAt: number;
  now: number;
  /** Whether the task's filtered list exists (pre-processing finished). */
  filtered: boolean;
  /** Its position in the filtered list; undefined when it is not there. */
  position: number | undefined;
  removal: RemovalFacts;
  delivery: DeliveryFacts;
  login: LoginFacts;
}

const LIVE: readonly TaskState[] = [
  'QUEUED',
  'PREPROCESSING',
  'DISPATCHING',
  'SENDING',
  'PREEMPTED',
  'SCHEDULED',
  'CREATED',
];

/**
 * The fate the facts support, and nothing stronger: where a fact is missing
 * (a task from before the records, a host that holds them not asked) the
 * answer is `unknown` with the reason, never a "not delivered".
 */
export function classifyFate(facts: FateFacts): RecipientFate {
  const base = { uin: facts.uin };
  const copies =
    facts.removal.recorded && facts.removal.duplicateCopies > 0
      ? { duplicateCopiesRemoved: facts.removal.duplicateCopies }
      : {};
  if (!facts.filtered) return { ...base, ...notFiltered(facts.taskState) };
  if (facts.position === undefined) return { ...base, ...copies, ...outsideList(facts.removal) };
  return { ...base, position: facts.position, ...copies, ...keptPositionFate(facts) };
}

/** What the fate of a recipient in the filtered list depends on: neither its uin, nor its position, nor its removal. */
export type KeptPositionFacts = Pick<FateFacts, 'taskState' | 'expiresAt' | 'now' | 'delivery' | 'login'>;

/**
 * The fate classifyFate gives a recipient in the filtered list, without its
 * uin, position or duplicate copies: every position sharing these facts (a
 * run of a batch record's online, or offline and not logged in, positions)
 * shares it (a rejected one shares it with those rejected for the same
 * reason), so the delivery report decides it once per run and the lookup
 * once per recipient, by the same code.
 */
export function keptPositionFate(facts: KeptPositionFacts): Fate {
  const { delivery } = facts;
  if (delivery.kind === 'unavailable') return { fate: 'unknown', reason: delivery.reason };
  if (delivery.kind === 'none') return unreached(facts.taskState);
  // Pushed online and refused for good by the channel (a dead letter): confirmed, never sent again, not delivered.
  if (delivery.online && delivery.rejected !== undefined)
    return { fate: 'rejected', at: delivery.at, executor: delivery.executor, reason: delivery.rejected };
  if (delivery.online)
    return { fate: 'delivered_online', at: delivery.at, executor: delivery.executor, atLogin: false };
  return { fate: 'queued_offline', at: delivery.at, executor: delivery.executor, then: offlineThen(facts) };
}

function notFiltered(state: TaskState): Fate {
  if (LIVE.includes(state)) return { fate: 'unknown', reason: `the task is ${state}: its list is not filtered yet` };
  return { fate: 'not_reached', taskState: state, why: `the task ended ${state} before its list was filtered` };
}

function outsideList(removal: RemovalFacts): Fate {
  if (!removal.recorded)
    return {
      fate: 'unknown',
      reason:
        'not in the filtered list; the task predates the removed-sets record, so whether a link removed it is not known',
    };
  if (removal.reason !== undefined) return { fate: 'removed', link: removal.reason };
  if (removal.duplicateCopies > 0)
    return {
      fate: 'unknown',
      reason: 'duplicate copies were removed but no copy is in the filtered list or a removed set',
    };
  if (!removal.complete)
    return {
      fate: 'unknown',
      reason:
        'not in the filtered list; the list was filtered in parallel chunks by a version that did not record the dedupe, blacklist and no-resend removals one by one',
    };
  return { fate: 'not_in_audience' };
}

function unreached(state: TaskState): Fate {
  switch (state) {
    case 'COMPLETED':
      return {
        fate: 'unknown',
        reason:
          'the task completed but no delivery record covers this position (a task from before the records, or its records purged?)',
      };
    case 'PAUSED':
      return { fate: 'not_reached', taskState: state, why: 'the task is paused before this position' };
    case 'CANCELLED':
    case 'EXPIRED':
    case 'FAILED':
      return {
        fate: 'not_reached',
        taskState: state,
        why: `the task ended ${state} before this position was confirmed`,
      };
    default:
      return {
        fate: 'not_reached',
        taskState: state,
        why: `the task is ${state}: no batch holding this position is confirmed yet`,
      };
  }
}

function offlineThen({ login, now, expiresAt }: KeptPositionFacts): OfflineThen {
  if (login.kind === 'unavailable') return { outcome: 'unknown', reason: login.reason };
  if (login.kind === 'record') {
    const { outcome, at } = login.outcome;
    if (outcome === 'delivered') return { outcome: 'delivered_at_login', at };
    return { outcome: 'dropped_at_login', at, why: outcome };
  }
  if (now >= expiresAt) return { outcome: 'expired', at: expiresAt };
  return { outcome: 'waiting', until: expiresAt };
}
