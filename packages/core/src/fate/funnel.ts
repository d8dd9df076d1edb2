import type { FilterReason, TaskReport } from '../task/model';
import type { TaskState } from '../task/task-machine';
import type { DeliveryCoverage } from './coverage';
import type { LoginOutcomeKind } from './fate';
import { unreachableReason } from './hosts';

/**
 * The filter links in the order the chain runs them (docs/architecture.md,
 * "The filter chain"): the funnel narrows in this order. `over_frequency` is
 * the frequency cap, a user's daily budget of broadcasts (docs/frequency.md).
 */
export const CHAIN_ORDER: readonly FilterReason[] = [
  'duplicate',
  'blacklisted',
  'already_sent',
  'not_follower',
  'targeting',
  'held_out',
  'over_frequency',
];

export type FunnelStageName =
  | 'audience'
  | 'removed'
  | 'kept'
  | 'delivered_online'
  | 'rejected'
  | 'queued_offline'
  | 'not_reached'
  | 'unknown'
  | 'delivered_at_login'
  | 'waiting'
  | 'expired'
  | 'dropped_at_login';

/**
 * A count, or `unknown` with the reason: a funnel never shows a number its
 * records cannot back. A known count may carry a reason too (the unknown
 * stage says why its recipients are unknown).
 */
export type FunnelCount = { count: number; reason?: string } | { count: 'unknown'; reason: string };

export type FunnelStage = FunnelCount & {
  stage: FunnelStageName;
  /** The stage this one is a part of; null for the audience. */
  of: FunnelStageName | null;
  /** removed: which link. */
  link?: FilterReason;
  /** dropped_at_login: why. */
  why?: 'expired' | 'over_frequency';
  /** removed: recipients left after this link. */
  remaining?: number | 'unknown';
  /** rejected: by the channel's reason. */
  byReason?: Record<string, number>;
};

/** Login outcomes of a task's offline entries, counted as they are recorded. */
export type LoginCounts = Record<LoginOutcomeKind, number>;

export interface FunnelFacts {
  taskState: TaskState;
  expiresAt: number;
  now: number;
  /** Whether the task's filtered list exists. */
  filtered: boolean;
  report: Pick<TaskReport, 'total' | 'kept' | 'removed' | 'deadLetters'>;
  /** The kept positions against the batch records, or why there are none to count. */
  delivery: { kind: 'counted'; coverage: DeliveryCoverage } | { kind: 'unavailable'; reason: string };
  logins: { kind: 'counted'; counts: LoginCounts } | { kind: 'unavailable'; reason: string };
}

const known = (count: number): FunnelCount => ({ count });
const unknown = (reason: string): FunnelCount => ({ count: 'unknown', reason });

/**
 * A task's funnel from its facts, each stage after the one it is a part
 * of: the audience, what each filter link removed and what was left after
 * it, then how the kept positions stand (delivered online; rejected by the
 * channel; queued offline, then what became of the entries; not reached;
 * unknown). Each stage counts what
 * the per-recipient answer (classifyFate) would say of the same positions,
 * so a funnel and the delivery report counted by fate agree. Every level
 * sums to its parent: audience = removed + kept; kept = online + rejected +
 * offline + not reached + unknown; offline = delivered at login + waiting + expired +
 * dropped at login. A count the facts cannot back is `unknown` with why.
 */
export function buildFunnel(facts: FunnelFacts): FunnelStage[] {
  const audience: FunnelStage = { stage: 'audience', of: null, ...known(facts.report.total) };
  if (!facts.filtered) return [audience, ...notFiltered(facts.taskState)];
  return [audience, ...filterStages(facts.report), ...deliveryStages(facts)];
}

function notFiltered(state: TaskState): FunnelStage[] {
  const ended = ['CANCELLED', 'EXPIRED', 'FAILED', 'COMPLETED'].includes(state);
  const reason = ended
    ? `the task ended ${state} before its list was filtered: none of its recipients was reached`
    : `the task is ${state}: its list is not filtered yet`;
  return [
    ...CHAIN_ORDER.map((link): FunnelStage => ({ stage: 'removed', of: 'audience', link, ...unknown(reason) })),
    { stage: 'kept', of: 'audience', ...unknown(reason) },
  ];
}

/** One stage per link in chain order (0 for a link that did not run or removed none), then kept. */
function filterStages(report: FunnelFacts['report']): FunnelStage[] {
  let remaining = report.total;
  const stages = CHAIN_ORDER.map((link): FunnelStage => {
    const count = report.removed[link] ?? 0;
    remaining -= count;
    return { stage: 'removed', of: 'audience', link, count, remaining };
  });
  return [...stages, { stage: 'kept', of: 'audience', ...known(report.kept) }];
}

function deliveryStages(facts: FunnelFacts): FunnelStage[] {
  if (facts.delivery.kind === 'unavailable') {
    const { reason } = facts.delivery;
    return [
      { stage: 'delivered_online', of: 'kept', ...unknown(reason) },
      { stage: 'rejected', of: 'kept', ...unknown(reason) },
      { stage: 'queued_offline', of: 'kept', ...unknown(reason) },
      { stage: 'not_reached', of: 'kept', ...unknown(reason) },
      // Every kept recipient is answered unknown one by one, for this reason.
      { stage: 'unknown', of: 'kept', ...known(facts.report.kept), reason },
    ];
  }
  const { online, rejected, offline, passedWithoutRecord, unconfirmed, heldByUnreachable } = facts.delivery.coverage;
  // As classifyFate: a completed task's position with no record is unknown, not "not reached".
  const completed = facts.taskState === 'COMPLETED';
  const withoutRecord = passedWithoutRecord + (completed ? unconfirmed : 0);
  const held = heldByUnreachable?.count ?? 0;
  // A host down: what the others recorded is counted, and said to be theirs; what it may hold is unknown, naming it.
  const partial = heldByUnreachable === undefined ? {} : { reason: answeredOnly(heldByUnreachable.hosts) };
  const unknownReasons = [
    ...(held > 0 ? [unreachableReason(heldByUnreachable!.hosts)] : []),
    ...(withoutRecord > 0
      ? ['confirmed without a delivery record (batches from before the records, or records purged)']
      : []),
  ];
  return [
    { stage: 'delivered_online', of: 'kept', ...known(online), ...partial },
    rejectedStage(rejected, facts.report.deadLetters ?? {}, partial.reason),
    { stage: 'queued_offline', of: 'kept', ...known(offline), ...partial },
    ...offlineStages(offline, facts),
    { stage: 'not_reached', of: 'kept', ...known(completed ? 0 : unconfirmed), ...partial },
    {
      stage: 'unknown',
      of: 'kept',
      ...known(withoutRecord + held),
      ...(unknownReasons.length > 0 ? { reason: unknownReasons.join('; ') } : {}),
    },
  ];
}

/** What a stage counted from the hosts that answered says of the others. */
const answeredOnly = (hosts: readonly string[]): string =>
  `counted from the delivery records of the hosts that answered; ${unreachableReason(hosts)} (what ${hosts.length === 1 ? 'it' : 'they'} may hold is counted in unknown)`;

/**
 * The positions the records say the channel rejected, by reason. The task's
 * own dead-letter counts may hold more (batches confirmed before rejections
 * were recorded per recipient, whose rows say delivered_online): then the
 * stage says so, the count staying the records' so it agrees with the rows.
 */
function rejectedStage(
  byReason: Record<string, number>,
  deadLetters: Record<string, number>,
  partial: string | undefined,
): FunnelStage {
  const count = sum(byReason);
  const counted = sum(deadLetters);
  const reasons = [
    ...(partial === undefined ? [] : [partial]),
    ...(counted > count
      ? [
          `the task counted ${counted} dead letters; ${counted - count} of them were confirmed without a per-recipient record of the rejection (their rows say delivered_online)`,
        ]
      : []),
  ];
  return {
    stage: 'rejected',
    of: 'kept',
    count,
    byReason,
    ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
  };
}

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((total, n) => total + n, 0);

/** What became of the offline entries: login outcomes as counted, the rest waiting or expired by the clock. */
function offlineStages(offline: number, facts: FunnelFacts): FunnelStage[] {
  const { logins } = facts;
  const settled =
    logins.kind === 'counted' ? logins.counts.delivered + logins.counts.expired + logins.counts.over_frequency : 0;
  const reason =
    logins.kind === 'unavailable'
      ? logins.reason
      : settled > offline
        ? `${settled} login outcomes are recorded for ${offline} queued-offline positions: the counts do not match the batch records`
        : undefined;
  const stage = (name: FunnelStageName, count: number, why?: 'expired' | 'over_frequency'): FunnelStage => ({
    stage: name,
    of: 'queued_offline',
    ...(why === undefined ? {} : { why }),
    ...(reason === undefined ? known(count) : unknown(reason)),
  });
  const counts = logins.kind === 'counted' ? logins.counts : { delivered: 0, expired: 0, over_frequency: 0 };
  const open = offline - settled;
  const expired = facts.now >= facts.expiresAt;
  return [
    stage('delivered_at_login', counts.delivered),
    stage('waiting', expired ? 0 : open),
    stage('expired', expired ? open : 0),
    stage('dropped_at_login', counts.expired, 'expired'),
    stage('dropped_at_login', counts.over_frequency, 'over_frequency'),
  ];
}
