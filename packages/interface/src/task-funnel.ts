import {
  buildFunnel,
  CoverageCounter,
  isHostsUnreachable,
  unreachableOf,
  type FunnelFacts,
  type FunnelStage,
} from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import { NO_RECORDS, type RecipientFateDeps } from './recipient-fate';

/** GET /api/v1/tasks/:id/funnel's answer. */
export interface TaskFunnel {
  taskId: number;
  state: Task['state'];
  /** When it was counted, ms since the epoch: waiting and expired depend on it. */
  at: number;
  stages: FunnelStage[];
}

/**
 * A task's funnel (docs/recipient-truth.md, "The funnel"), from the data the
 * delivery report reads: the task report's filter counts, its batch records
 * walked once in position order (one record in memory at a time, about
 * 24,000 of 512 bytes for 10^8 recipients) against its units' checkpoints,
 * and the login outcomes' counts (one read). Core's buildFunnel decides each
 * stage as classifyFate decides each row, so the two agree. A task whose list
 * is not filtered yet answers its audience and says the rest is unknown. On
 * production, where each executor keeps its own records, the records of the
 * hosts that answered are counted and the positions a host that did not
 * answer may hold are unknown ("host B unreachable"), as the per-recipient
 * answers say of them one by one.
 */
export async function taskFunnel(task: Task, deps: RecipientFateDeps): Promise<TaskFunnel> {
  const now = deps.clock.now();
  const filtered = task.filteredListId !== null;
  const facts: FunnelFacts = {
    taskState: task.state,
    expiresAt: task.expiresAt,
    now,
    filtered,
    report: task.report,
    delivery: filtered ? await deliveryOf(task, deps) : { kind: 'unavailable', reason: 'not filtered' },
    logins: await loginsOf(task, deps),
  };
  return { taskId: task.id, state: task.state, at: now, stages: buildFunnel(facts) };
}

async function deliveryOf(task: Task, deps: RecipientFateDeps): Promise<FunnelFacts['delivery']> {
  const log = deps.deliveryRecords;
  if (log === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  // Units first: a batch confirmed between the two reads is then counted by its record, never as one a checkpoint passed without one.
  const units = await deps.store.listUnits(task.id);
  const counter = new CoverageCounter(task.report.kept);
  const walk = log.batchesFrom(task.id, 0);
  for await (const record of walk) counter.add(record);
  // A host that did not answer: the others' records are counted, and what it may hold is unknown, naming it.
  return { kind: 'counted', coverage: counter.finish(units, unreachableOf(walk)) };
}

async function loginsOf(task: Task, deps: RecipientFateDeps): Promise<FunnelFacts['logins']> {
  if (deps.deliveryRecords === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  try {
    return { kind: 'counted', counts: await deps.deliveryRecords.loginCounts(task.id) };
  } catch (error) {
    if (!isHostsUnreachable(error)) throw error;
    return { kind: 'unavailable', reason: error.message };
  }
}
