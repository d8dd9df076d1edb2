import { ErrorCodes, HeraldError } from '@herald/core';
import {
  bitAt,
  classifyFate,
  deliveryAcrossHosts,
  isHostsUnreachable,
  loginAcrossHosts,
  rejectionAt,
  type DeliveryFacts,
  type DeliveryRecord,
  type LoginFacts,
  type RecipientFate,
} from '@herald/core/fate';
import type { Clock, DeliveryRecordLog, TaskStore } from '@herald/core/ports';
import { variantIndexOf } from '@herald/core/rollout';
import {
  deliveryOrderListIdOf,
  filteredListRuns,
  TERMINAL_TASK_STATES,
  type ExecutionUnit,
  type LocalGroup,
  type Task,
} from '@herald/core/task';
import {
  positionInList,
  positionInRuns,
  removalOf,
  removedPathOf,
  type ListRepository,
  type OpenTaskFiles,
} from '@herald/audience';
import type { CompletedTaskLookups, CompletedTaskState } from './completed-task-lookups';

export interface RecipientFateDeps {
  /** The task's units: whether a checkpoint passed a position that has no record. */
  store: Pick<TaskStore, 'listUnits'>;
  lists: ListRepository;
  /**
   * Absent (a process that keeps none and cannot ask the executors for
   * theirs): a reached recipient's delivery is answered unknown, with the
   * reason. On production it reads the executors' records over their
   * management endpoints and throws HostsUnreachable for a part a host did
   * not give.
   */
  deliveryRecords?: DeliveryRecordLog;
  clock: Clock;
  /** What lookups of a COMPLETED task share (its units, its open files); absent: read for each lookup. */
  completed?: CompletedTaskLookups;
}

/** Why a profile without delivery records cannot say what happened at a position. */
export const NO_RECORDS =
  'this process keeps no delivery records and cannot ask the executors for theirs (production: management.tokenFile is not set)';

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
  const kept = await deps.completed?.acquire(task, deps);
  try {
    return await fateFrom(task, uin, deps, kept?.state);
  } finally {
    kept?.release();
  }
}

/** recipientFate's answer, from the completed task's kept state when there is one, else from the files and store. */
async function fateFrom(
  task: Task,
  uin: number,
  deps: RecipientFateDeps,
  kept: CompletedTaskState | undefined,
): Promise<RecipientFate> {
  const filtered = task.filteredListId !== null;
  const listPath = filtered ? deps.lists.pathOf(task.filteredListId!) : undefined;
  const { position, group } =
    listPath === undefined ? {} : await positionOf(task, uin, listPath, deps.lists, kept?.files);
  const removal =
    listPath === undefined
      ? ({ recorded: false } as const)
      : await (kept?.files.removalOf(uin) ?? removalOf(removedPathOf(listPath), uin));
  const delivery =
    position === undefined ? ({ kind: 'none' } as const) : await deliveryAt(task, position, deps, kept?.units);
  const login =
    delivery.kind === 'record' && !delivery.online
      ? await loginOf(task.id, uin, deps, delivery.executor)
      : ({ kind: 'none' } as const);
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
  const withGroup = group === undefined ? fate : withLocalGroup(fate, group, task, deps.clock.now());
  return { ...withGroup, ...variantOf(task, uin, position) };
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

/**
 * Where the uin is in the list the task's units range over: the filtered list
 * for a task of one instant (a canary's in two sorted runs: both are
 * searched); for a local-time task its delivery-order list, group by group
 * (docs/local-time.md), with the group holding it.
 */
async function positionOf(
  task: Task,
  uin: number,
  filteredPath: string,
  lists: ListRepository,
  open: OpenTaskFiles | undefined,
): Promise<{ position?: number; group?: LocalGroup }> {
  const groups = task.report.localGroups;
  if (groups === undefined)
    return { position: await (open?.positionOf(uin) ?? positionInList(filteredPath, uin, filteredListRuns(task))) };
  // The filtered list itself, under the units' name; an earlier Herald's task has it as a second file.
  const found = await positionInRuns(lists.pathOf(deliveryOrderListIdOf(task.id)), uin, groups);
  return found === undefined ? {} : { position: found.position, group: groups[found.run] };
}

/**
 * The fate with the recipient's local-time group; a skipped group's recipient
 * was never to be reached, and one not reached yet of a group held for its
 * quiet hours (docs/local-time.md) waits for their end.
 */
export function withLocalGroup(fate: RecipientFate, group: LocalGroup, task: Task, now: number): RecipientFate {
  const held = group.heldUntil !== undefined && group.heldUntil > now ? { heldUntil: group.heldUntil } : {};
  const localGroup = {
    releaseAt: group.releaseAt,
    offsetMinutes: group.offsetMinutes,
    skipped: group.skipped,
    ...held,
  };
  if (fate.fate === 'not_reached' && held.heldUntil !== undefined && task.state === 'SENDING')
    return { ...fate, why: `held for its quiet hours until ${new Date(held.heldUntil).toISOString()}`, localGroup };
  if (!group.skipped || fate.fate === 'delivered_online' || fate.fate === 'rejected' || fate.fate === 'queued_offline')
    return { ...fate, localGroup };
  const { uin, position } = fate;
  return {
    uin,
    ...(position === undefined ? {} : { position }),
    fate: 'not_reached',
    taskState: task.state,
    why: 'its time zone had passed the local time (deliverAt.missed skip), or its release came after the task expires',
    localGroup,
  };
}

/** TASK_NOT_PREPROCESSED (`details.field: "id"`): nothing about the task's recipients is known yet. */
export function notPreprocessed(task: Task): HeraldError {
  return new HeraldError(
    ErrorCodes.TASK_NOT_PREPROCESSED,
    `task ${task.id} is ${task.state}: its list is not filtered yet, so no recipient's fate is known`,
    { details: { field: 'id', taskId: task.id, state: task.state } },
  );
}

/** The record holding the position; where it is on no host that answered, what the others' silence allows. */
async function deliveryAt(
  task: Task,
  position: number,
  deps: RecipientFateDeps,
  keptUnits: readonly ExecutionUnit[] | undefined,
): Promise<DeliveryFacts> {
  if (deps.deliveryRecords === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  // The units before the record, as the funnel reads them: a checkpoint is moved only after its batch's record is
  // written, so one that passed the position when read has its record there when it is asked for.
  const units = keptUnits ?? (await deps.store.listUnits(task.id));
  let record: DeliveryRecord | undefined;
  let unreachable: ReadonlySet<string> = new Set();
  try {
    record = await deps.deliveryRecords.batchAt(task.id, position, units);
  } catch (error) {
    if (!isHostsUnreachable(error)) throw error;
    unreachable = new Set(error.hosts);
  }
  return deliveryAcrossHosts(deliveryFactsAt(position, record, units), position, units, unreachable);
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
  const online = bitAt(record.online, position - record.from);
  // Only a batch with dead letters has rejections: one binary search among them.
  const rejected =
    online && record.rejected !== undefined ? rejectionAt(record.rejected, position - record.from) : undefined;
  return {
    kind: 'record',
    online,
    at: record.at,
    executor: record.executor,
    ...(rejected === undefined ? {} : { rejected }),
  };
}

/**
 * A position with no record whose unit's checkpoint passed it was confirmed
 * without one (its batch predates the records: a task sending across the
 * upgrade; or the task's records were purged): unknown, never "not reached". A record is written before the
 * progress report that moves the checkpoint, so otherwise there is none.
 */
function checkpointPassed(position: number, units: readonly ExecutionUnit[]): DeliveryFacts | undefined {
  const unit = units.find((u) => u.start <= position && position < u.end);
  if (unit === undefined || position >= unit.checkpoint) return undefined;
  return {
    kind: 'unavailable',
    reason: `unit ${unit.unitNo} confirmed this position without a delivery record (its batch predates the records, or they were purged)`,
  };
}

/** The login outcome of an offline recipient, which `queuedBy` (its record's executor) keeps. */
export async function loginOf(
  taskId: number,
  uin: number,
  deps: RecipientFateDeps,
  queuedBy: string,
): Promise<LoginFacts> {
  if (deps.deliveryRecords === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
  try {
    const outcome = await deps.deliveryRecords.loginOf(taskId, uin);
    return outcome === undefined ? { kind: 'none' } : { kind: 'record', outcome };
  } catch (error) {
    if (!isHostsUnreachable(error)) throw error;
    return loginAcrossHosts({ kind: 'none' }, queuedBy, new Set(error.hosts));
  }
}
