import { ErrorCodes, HeraldError } from '@herald/core';
import {
  bitAt,
  classifyFate,
  type DeliveryFacts,
  type DeliveryRecord,
  type LoginFacts,
  type RecipientFate,
} from '@herald/core/fate';
import type { Clock, DeliveryRecordLog, TaskStore } from '@herald/core/ports';
import { variantIndexOf } from '@herald/core/rollout';
import { TERMINAL_TASK_STATES, type ExecutionUnit, type Task } from '@herald/core/task';
import { positionInList, removalOf, removedPathOf, type ListRepository } from '@herald/audience';

export interface RecipientFateDeps {
  /** The task's units: whether a checkpoint passed a position that has no record. */
  store: Pick<TaskStore, 'listUnits'>;
  lists: ListRepository;
  /** Absent (production, for now): a reached recipient's delivery is answered unknown, with the reason. */
  deliveryRecords?: DeliveryRecordLog;
  clock: Clock;
}

/** Why a profile without delivery records cannot say what happened at a position. */
export const NO_RECORDS =
  'the delivery records are kept only in the embedded profile: this cluster does not record which positions went online or offline';

/**
 * One recipient's fate in one task (docs/recipient-truth.md), assembled from
 * the task's files (its filtered list and removed sets, binary searches by
 * positioned reads) and the delivery records (one seek for the batch holding
 * its position, one read for a login outcome); core's classifyFate decides.
 * A task whose list is not filtered yet and still may be is refused
 * TASK_NOT_PREPROCESSED: nothing about its recipients is known.
 */
export async function recipientFate(task: Task, uin: number, deps: RecipientFateDeps): Promise<RecipientFate> {
  const filtered = task.filteredListId !== null;
  if (!filtered && !TERMINAL_TASK_STATES.includes(task.state)) throw notPreprocessed(task);
  const listPath = filtered ? deps.lists.pathOf(task.filteredListId!) : undefined;
  const position = listPath === undefined ? undefined : await positionInList(listPath, uin, task.report.canary?.sample);
  const removal =
    listPath === undefined ? ({ recorded: false } as const) : await removalOf(removedPathOf(listPath), uin);
  const delivery = position === undefined ? ({ kind: 'none' } as const) : await deliveryAt(task, position, deps);
  const login =
    delivery.kind === 'record' && !delivery.online ? await loginOf(task.id, uin, deps) : ({ kind: 'none' } as const);
  const fate = classifyFate({
    uin,
    taskState: task.state,
    expiresAt: task.expiresAt,
    now: deps.clock.now(),
    filtered,
    position,
    removal,
    delivery,
    login,
  });
  return { ...fate, ...variantOf(task, uin, position) };
}

/**
 * An A/B task's recipient in the filtered list was given the variant its uin
 * hashes to (docs/rollouts.md): the same placement the executors used. A
 * held-out one is not in the list; its fate says `removed` by `held_out`.
 */
function variantOf(task: Task, uin: number, position: number | undefined): { variant?: string } {
  const variants = task.rollout?.variants;
  if (variants === undefined || position === undefined) return {};
  const at = variantIndexOf(uin, task.rollout!.seed, variants, task.rollout!.holdout ?? 0);
  return at < 0 ? {} : { variant: variants[at]!.name };
}

/** TASK_NOT_PREPROCESSED (`details.field: "id"`): nothing about the task's recipients is known yet. */
export function notPreprocessed(task: Task): HeraldError {
  return new HeraldError(
    ErrorCodes.TASK_NOT_PREPROCESSED,
    `task ${task.id} is ${task.state}: its list is not filtered yet, so no recipient's fate is known`,
    { details: { field: 'id', taskId: task.id, state: task.state } },
  );
}

async function deliveryAt(task: Task, position: number, deps: RecipientFateDeps): Promise<DeliveryFacts> {
  if (deps.deliveryRecords === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  const record = await deps.deliveryRecords.batchAt(task.id, position);
  return deliveryFactsAt(position, record, await deps.store.listUnits(task.id));
}

/**
 * What the record holding `position` (or its absence) says of it, given the
 * task's units: the per-recipient answer and the delivery report both decide
 * here, so they never disagree.
 */
export function deliveryFactsAt(
  position: number,
  record: DeliveryRecord | undefined,
  units: readonly ExecutionUnit[],
): DeliveryFacts {
  if (record === undefined || position < record.from || position >= record.from + record.count)
    return checkpointPassed(position, units) ?? { kind: 'none' };
  return {
    kind: 'record',
    online: bitAt(record.online, position - record.from),
    at: record.at,
    executor: record.executor,
  };
}

/**
 * A position with no record whose unit's checkpoint passed it was confirmed
 * without one (its batch predates the records: a task sending across the
 * upgrade): unknown, never "not reached". A record is written before the
 * progress report that moves the checkpoint, so otherwise there is none.
 */
function checkpointPassed(position: number, units: readonly ExecutionUnit[]): DeliveryFacts | undefined {
  const unit = units.find((u) => u.start <= position && position < u.end);
  if (unit === undefined || position >= unit.checkpoint) return undefined;
  return {
    kind: 'unavailable',
    reason: `unit ${unit.unitNo} confirmed this position without a delivery record (its batch predates the records)`,
  };
}

export async function loginOf(taskId: number, uin: number, deps: RecipientFateDeps): Promise<LoginFacts> {
  if (deps.deliveryRecords === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  const outcome = await deps.deliveryRecords.loginOf(taskId, uin);
  return outcome === undefined ? { kind: 'none' } : { kind: 'record', outcome };
}
