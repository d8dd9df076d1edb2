import type { TaskState } from './task-machine';
import type { UnitState } from './unit-machine';
import type { TaskRollout } from '../rollout/model';
import type { TaskEngagement } from '../rollout/engagement';
import type { DeliverAt } from '../time/local-time';
import type { QuietHours } from '../time/quiet-hours';

export type PriorityClass = 'realtime' | 'normal';

/** Why a filter removed a recipient; the keys of a task report's `removed`. */
export const FILTER_REASONS = [
  'duplicate',
  'blacklisted',
  'already_sent',
  'not_follower',
  'over_frequency',
  'targeting',
  // The A/B holdout (docs/rollouts.md): appended last, so stored removed-set indexes keep their meaning.
  'held_out',
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

export interface TaskContent {
  /** The message text pushed to each recipient. */
  body: string;
  title?: string;
  /**
   * Personalised content: body and title are templates whose `{{variables}}`
   * are filled per recipient from the user-attributes store (core
   * template/template.ts, docs/delivery.md). Absent: sent as written.
   */
  template?: true;
}

/** What the interface accepts; the store adds id, state and bookkeeping. */
export interface NewTask {
  accountId: string;
  listId: string;
  content: TaskContent;
  /** CRC-32 of the content: the no-resend filter's key. */
  contentCrc: number;
  priority: PriorityClass;
  /** Epoch ms; now or later. */
  sendAt: number;
  /** Epoch ms after which offline entries and unsent units are dropped. */
  expiresAt: number;
  /** Recipients in the uploaded list before filtering. */
  listCount: number;
  /**
   * Makes creation idempotent (1..255 characters): createTask with a key
   * already stored returns the task created with it instead of another one.
   * Campaign firings use `campaign:<id>:<scheduledAt>`; the API
   * `api:<accountId>:<Idempotency-Key header>`.
   */
  idempotencyKey?: string;
  /**
   * Pre-delivery: when clients show the message (epoch ms). The task may be
   * sent ahead of it (from `sendAt`) and every delivery carries it, so a
   * large audience sees the message at the same second. Absent: shown on
   * arrival.
   */
  displayAt?: number;
  /**
   * Recipients per second the account asked this task to be sent at (an
   * integer 1..10^8, at most the account's `maxSpeed`: account-quota/speed.ts).
   * Absent: none asked; the dispatcher computes one from global load for
   * placement only, and the executors send as fast as the hosts allow.
   */
  speed?: number;
  /**
   * A targeted task: a targeting query (core targeting/query.ts, the
   * audiences' language) its recipients must also match; the dispatcher's
   * targeting link removes the others (reason `targeting`). Absent: untargeted.
   */
  targeting?: string;
  /**
   * Superseding messages (docs/delivery.md, "Collapse keys"): a newer task of
   * the same account with the same key replaces this one in every offline
   * list it shares with it, so a user who logs in gets only the newest
   * (`collapseScopeOf`). 1..128 characters of `[A-Za-z0-9._:-]`
   * (`checkCollapseKey`). Absent: nothing supersedes the task.
   */
  collapseKey?: string;
  /**
   * How far back the no-resend filter looks (epoch ms): only earlier tasks of
   * the content scheduled after this instant (their `sendAt`) count as
   * already sent. A campaign firing sets it from its template's no-resend
   * scope (core campaign/no-resend.ts). Absent: every earlier task counts.
   */
  noResendSince?: number;
  /**
   * Safe rollouts (docs/rollouts.md): content variants over disjoint shares
   * of the audience and a holdout that gets nothing, placed by a hash of
   * each uin and `rollout.seed` (core rollout/assign.ts). Absent: one content
   * for everyone.
   */
  rollout?: TaskRollout;
  /**
   * Local-time delivery (docs/local-time.md): each recipient is released at
   * `localTime` in their own zone (user attribute `tz`, else
   * `defaultTimeZone`), from `sendAt` on. Absent: everyone at `sendAt`.
   */
  deliverAt?: DeliverAt;
  /**
   * Quiet hours in each recipient's local time (docs/local-time.md, "Quiet
   * hours"): a zone whose recipients would be released inside them is held
   * to their end. Absent: none.
   */
  quietHours?: QuietHours;
}

export interface TaskReport {
  /** Recipients in the audience list as uploaded. */
  total: number;
  /** Recipients left after the filter chain. */
  kept: number;
  removed: Partial<Record<FilterReason, number>>;
  /** Pushed to online users through the delivery gateway. */
  delivered: number;
  /** Appended to offline lists, delivered at the user's next login. */
  offline: number;
  units: number;
  unitsDone: number;
  /**
   * Recipients the channel rejected for good, by the channel's reason
   * (docs/delivery.md, "Dead letters"): never sent again, not in `delivered`.
   * Absent: none so far.
   */
  deadLetters?: Record<string, number>;
  /**
   * Why the delivery channel holds this task's sending while it does
   * (throttled, or unavailable: failing, breaker open); null or absent while
   * it sends. The task stays SENDING and resumes by itself.
   */
  channel?: ChannelHold | null;
  /** A canary task (docs/rollouts.md): its sample and where the canary stands. Absent: no canary. */
  canary?: CanaryReport;
  /**
   * Clicks (and opens) an app backend reported for this task, running totals
   * (POST /api/v1/tasks/:id/engagement; docs/rollouts.md "Click-through").
   * Absent: none reported.
   */
  engagement?: TaskEngagement;
  /**
   * A local-time task's groups (docs/local-time.md), in release order: the
   * recipients of one release instant and offset, positions [start, end) of
   * its delivery-order list. Set when pre-processing ends; the counts follow
   * the group's units. Absent: not a local-time task, or not planned yet.
   */
  localGroups?: LocalGroup[];
}

/**
 * The list a local-time task's units range over: its filtered recipients
 * group after group (docs/local-time.md). It is the filtered list itself
 * under a second name; a task pre-processed by an earlier Herald has it as a
 * file of its own, beside a filtered list sorted by uin.
 */
export function deliveryOrderListIdOf(taskId: number): string {
  return `g_${taskId}`;
}

/**
 * The sorted runs a task's filtered list is written in when it is not one
 * sorted list: a canary's sample then the rest (docs/rollouts.md), a
 * local-time task's groups one after another. Undefined: one sorted list.
 * (A list whose header says SORTED is one, whatever its task: an earlier
 * Herald's local-time list.)
 */
export function filteredListRuns(task: {
  report: Pick<TaskReport, 'kept' | 'canary' | 'localGroups'>;
}): { start: number; end: number }[] | undefined {
  const { kept, canary, localGroups } = task.report;
  if (localGroups !== undefined) return localGroups.map(({ start, end }) => ({ start, end }));
  if (canary === undefined) return undefined;
  const sample = Math.min(canary.sample, kept);
  return [
    { start: 0, end: sample },
    { start: sample, end: kept },
  ];
}

/**
 * The local-time group (its index in `report.localGroups`) whose positions
 * hold `position` of the task's delivery-order list; undefined for a task
 * without groups (or a position outside them). A unit never spans two groups,
 * so every batch of a unit has its unit's group.
 */
export function localGroupAt(task: { report?: Pick<TaskReport, 'localGroups'> }, position: number): number | undefined {
  // A task read whole always has a report; a partial one (a test's, a message's) is simply not grouped.
  const groups = task.report?.localGroups;
  if (groups === undefined) return undefined;
  const index = groups.findIndex((g) => position >= g.start && position < g.end);
  return index < 0 ? undefined : index;
}

/** One release of a local-time task: who, when, and how far it got. */
export interface LocalGroup {
  /** The UTC offset its recipients' zones have at releaseAt, minutes east. */
  offsetMinutes: number;
  /** Epoch ms at which its units may start (its recipients' local time). */
  releaseAt: number;
  /** Its positions in the task's delivery-order list (deliveryOrderListIdOf). */
  start: number;
  end: number;
  /** Missed its local time (`missed: 'skip'`) or released only after expiry: nothing of it is sent. */
  skipped: boolean;
  /** Its units were started (the release instant came and the task was sending). */
  released: boolean;
  /**
   * Its sending met its quiet hours (`during: 'hold'`, docs/local-time.md):
   * an executor held a batch of it, and its unsent units wait until this
   * instant (epoch ms), the end of the quiet hours. Kept once passed: the
   * last such hold. Absent: never held at the moment of sending.
   */
  heldUntil?: number;
  delivered: number;
  offline: number;
}

/**
 * sampling: only the sample's units run, until the hold ends and the sample
 * is judged; passed: the sample stayed under the thresholds and the rest
 * runs; failed: it did not, and the task paused itself (its `error` says
 * why; a resume sends the rest anyway); promoted: the operator sent the rest
 * without waiting (POST /api/v1/tasks/:id/promote).
 */
export const CANARY_STATES = ['sampling', 'passed', 'failed', 'promoted'] as const;
export type CanaryState = (typeof CANARY_STATES)[number];

export interface CanaryReport {
  /** Positions [0, sample) of the filtered list are the sample. */
  sample: number;
  state: CanaryState;
  /** When the hold ends (epoch ms): the sample is judged then, or once its units are done if later. */
  holdUntil: number;
  /** The ratios the sample was judged by, once judged. */
  rejectedRatio?: number;
  failedRatio?: number;
  /** Reported clicks over the sample, once judged with engagement reported. */
  clickThrough?: number;
}

/** A delivery channel holding a task's sending: what a task report says (docs/delivery.md, "Pacing by the channel's health"). */
export interface ChannelHold {
  state: ChannelHoldState;
  /** The channel's own words: its Retry-After, its last failure. */
  reason: string;
}

/** throttled: the channel answered 429 (honouring its Retry-After); unavailable: it fails or its breaker is open. */
export const CHANNEL_HOLD_STATES = ['throttled', 'unavailable'] as const;
export type ChannelHoldState = (typeof CHANNEL_HOLD_STATES)[number];

/** A dead-letter reason: the channel's short token (docs/delivery.md, "Dead letters"). */
export const DEAD_LETTER_REASON = /^[a-z0-9_.-]{1,64}$/;

export interface Task extends Omit<NewTask, 'speed' | 'targeting' | 'noResendSince'> {
  id: number;
  /** Recipients per second the account asked for (NewTask.speed); null: none. Executors pace the task at it (docs/scheduling.md "Pacing"). */
  speed: number | null;
  /** The targeting query the task was created with (NewTask.targeting); null: untargeted. */
  targeting: string | null;
  /** NewTask.noResendSince; null: every earlier task of the content counts. */
  noResendSince: number | null;
  state: TaskState;
  /** Bumped by every write: optimistic concurrency. */
  version: number;
  /** Bumped by every change of owner: fencing. A write carrying an older epoch is refused. */
  epoch: number;
  owner: string | null;
  /** The sorted, filtered list that units range over; set when pre-processing ends. */
  filteredListId: string | null;
  report: TaskReport;
  error: { code: string; message: string } | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewUnit {
  unitNo: number;
  /** Index of the first recipient of this unit in the filtered list. */
  start: number;
  /** One past the last recipient. */
  end: number;
  executorId: string;
}

export interface ExecutionUnit extends NewUnit {
  taskId: number;
  state: UnitState;
  /** Recipients [start, checkpoint) are confirmed: delivered or queued offline. */
  checkpoint: number;
  delivered: number;
  offline: number;
  updatedAt: number;
}

export interface ListMeta {
  id: string;
  accountId: string;
  count: number;
  checksum: number;
  sorted: boolean;
  unique: boolean;
  bytes: number;
  createdAt: number;
}

export function emptyReport(total: number): TaskReport {
  return { total, kept: 0, removed: {}, delivered: 0, offline: 0, units: 0, unitsDone: 0 };
}

/** Recipients removed by all filters together. */
export function removedTotal(report: TaskReport): number {
  let sum = 0;
  for (const n of Object.values(report.removed)) sum += n ?? 0;
  return sum;
}
