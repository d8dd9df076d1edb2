import { onlineBitsOf, rejectionsOf, type DeliveryRecord } from '@herald/core/fate';
import {
  TOPICS,
  type Clock,
  type ConfirmedBatchLog,
  type DeliveryGateway,
  type DeliveryRecordLog,
  type EventBus,
  type OfflineAppendOptions,
  type OfflineStore,
  type RecipientRejection,
  type UserAttributeLookup,
} from '@herald/core/ports';
import type { OnlineView } from '@herald/core/presence';
import { collapseScopeOf, DEAD_LETTER_REASON, localGroupAt, type Task } from '@herald/core/task';
import type { UnitBatch } from '@herald/transport';
import { termsOf } from './display';
import { usesOf, type FrequencyControl } from './frequency-control';
import type { Personaliser } from './personalise';
import { queueInsideQuietHours } from './quiet-hours';

export interface DeliverBatchDeps {
  executorId: string;
  online: OnlineView;
  gateway: DeliveryGateway;
  offline: OfflineStore;
  /** With frequency control: the batch's online users are counted for the task on their local day of delivery. */
  frequency?: FrequencyControl;
  /** Users' attributes, for their `tz`: quiet hours with during 'offline' are judged in it. Without it, in the task's default zone. */
  zones?: UserAttributeLookup;
  /** Where the written batch is published (the reports topic), before it is confirmed. */
  reports?: Pick<EventBus, 'publish'>;
  confirmed: ConfirmedBatchLog;
  /** Where each confirmed batch's online positions are recorded (docs/recipient-truth.md); without it, nowhere. */
  records?: DeliveryRecordLog;
  personaliser: Personaliser;
  clock: Clock;
  /** Called once the batch's writes are under way, before the worker waits for them. */
  whileWriting?: () => void;
  /** Called once the batch's writes finished, with its online and offline recipients. */
  counted(online: number, offline: number): void;
}

/** What one batch came to: its online recipients delivered (less dead letters), its offline ones, its dead letters. */
export interface BatchOutcome {
  online: number;
  offline: number;
  /** Recipients the channel rejected for good, by its reason. */
  deadLetters: Record<string, number>;
  /** Set when the channel refused the batch whole: its reason. */
  refused?: string;
}

/** One batch after its writes (writeBatch), before it is confirmed (confirmBatch). */
export interface WrittenBatch {
  outcome: BatchOutcome;
  /** Its online recipients (in order), for the delivery record. */
  reached: Uint32Array;
  /** `reached` as the record's bitset over the batch's positions, when the split gave it (onlineBitsOf otherwise). */
  reachedBits?: Uint8Array;
  /** Its dead letters, under the reasons the task counts them by. */
  rejected: readonly RecipientRejection[];
}

/**
 * Writes one batch and confirms it (writeBatch, then confirmBatch). Returns
 * how many recipients went each way (online: delivered, less the dead
 * letters the channel rejected for good, which are confirmed all the same).
 * The caller reports it to the scheduler afterwards; a throw leaves it
 * unconfirmed, so it comes again.
 */
export async function deliverBatch(batch: UnitBatch, task: Task, deps: DeliverBatchDeps): Promise<BatchOutcome> {
  const written = await writeBatch(batch, task, deps);
  const published = publishReport(batch, task, written, deps);
  const recorded = deps.records === undefined ? undefined : deps.records.recordBatch(recordOf(batch, written, deps));
  await confirmBatch(batch, task, written, { published, recorded }, deps);
  return written.outcome;
}

/**
 * Writes one batch: pushes its online users through the gateway, appends the
 * others to their offline lists, counts deliveries for frequency control.
 * Nothing says it is confirmed yet: confirmBatch does, and only after it may
 * the batch be reported to the scheduler; a batch written but never confirmed
 * comes again from its checkpoint, and its writes are repeated (same
 * idempotency keys).
 */
export async function writeBatch(batch: UnitBatch, task: Task, deps: DeliverBatchDeps): Promise<WrittenBatch> {
  const online = new Uint32Array(batch.uins.length);
  const offline = new Uint32Array(batch.uins.length);
  // The delivery record's bits in the same pass over the batch, where a walk of its own cost the send path.
  const onlineBits = deps.records === undefined ? undefined : new Uint8Array((batch.uins.length + 7) >>> 3);
  const partition = deps.online.partition(batch.uins, online, offline, onlineBits);
  // Sorted: a filtered list's range, split in order. With quiet hours during 'offline', the online users
  // inside them now (in their zone) join the offline ones (docs/local-time.md "Quiet hours").
  const { reached, queued } = await queueInsideQuietHours(
    task,
    online.subarray(0, partition.online),
    offline.subarray(0, partition.offline),
    deps.zones,
    deps.clock.now(),
  );
  const split = { online: reached.length, offline: queued.length };
  // Counted beside the delivery, not after it: a count whose delivery then fails is not
  // confirmed, and the batch comes again from its checkpoint, delivered and counted (idempotently).
  const writes = Promise.all([
    split.online > 0
      ? deps.personaliser.deliver(
          deps.gateway,
          {
            taskId: task.id,
            uins: reached,
            content: task.content,
            atLogin: false,
            ...termsOf(task),
          },
          task.rollout,
        )
      : undefined,
    split.offline > 0 ? appendOffline(deps.offline, task, batch, queued) : undefined,
    split.online > 0 && deps.frequency !== undefined
      ? countDelivery(deps.frequency, task.id, reached, deps.clock)
      : undefined,
  ]);
  deps.whileWriting?.();
  const [result] = await writes;
  // Dead letters (recipients the channel rejected for good) are not delivered; the gateway counted and logged them.
  const rejected = labelled(result?.rejected ?? []);
  const delivered = split.online - rejected.length;
  deps.counted(delivered, split.offline);
  const outcome: BatchOutcome = {
    online: delivered,
    offline: split.offline,
    deadLetters: countByReason(rejected),
    ...(result?.refused === undefined ? {} : { refused: result.refused }),
  };
  // Quiet hours that queued some online users offline change the record's bits: recordOf works them out then.
  const reachedBits = reached.length === partition.online ? onlineBits : undefined;
  return { outcome, reached, rejected, ...(reachedBits === undefined ? {} : { reachedBits }) };
}

/**
 * The delivery record of a written batch (docs/recipient-truth.md): which of
 * its positions went online, and its dead letters by the reason the task
 * counts them under (in the same record: never one without the other).
 */
export function recordOf(
  batch: UnitBatch,
  written: WrittenBatch,
  deps: Pick<DeliverBatchDeps, 'executorId' | 'clock'>,
): DeliveryRecord {
  const rejections = rejectionsOf(batch.uins, written.rejected);
  return {
    taskId: batch.taskId,
    from: batch.offset,
    count: batch.uins.length,
    online: written.reachedBits ?? onlineBitsOf(batch.uins, written.reached),
    executor: deps.executorId,
    at: deps.clock.now(),
    ...(rejections === undefined ? {} : { rejected: rejections }),
  };
}

/**
 * Publishes a written batch to the reports stream (`deps.reports`), if there
 * is one: started as soon as the batch is written, so that it is under way
 * while the confirmations before the batch's own finish (the executor's
 * publisher puts the reports of a few batches in one produce). Returns the
 * publish, for confirmBatch to wait for; undefined without a stream.
 */
export function publishReport(
  batch: UnitBatch,
  task: Task,
  written: WrittenBatch,
  deps: Pick<DeliverBatchDeps, 'executorId' | 'reports'>,
): Promise<void> | undefined {
  if (deps.reports === undefined) return undefined;
  const { online: delivered, offline } = written.outcome;
  const published = deps.reports.publish(TOPICS.reports, [
    {
      key: String(task.id),
      value: {
        taskId: task.id,
        unitNo: batch.unitNo,
        from: batch.offset,
        to: batch.offset + batch.uins.length,
        delivered,
        offline,
        executor: deps.executorId,
      },
      timestamp: Date.now(),
    },
  ]);
  // Awaited by confirmBatch, maybe only after another wait failed: handled now, never an unhandled rejection.
  published.catch(() => undefined);
  return published;
}

/** The writes a batch's confirmation waits for, each started when the batch was written (undefined: none). */
export interface BatchLanding {
  /** Its publish to the reports stream (publishReport). */
  published: Promise<void> | undefined;
  /** Its delivery record's write. */
  recorded: Promise<void> | undefined;
}

/**
 * Confirms a written batch: waits for its publish to the reports stream,
 * then for its delivery record to land, then records it in the
 * confirmed-batch log, in that order; the batch may be reported to the
 * scheduler once this resolves, never before. A throw (the publish or the
 * record's write failing too) leaves it unconfirmed.
 */
export async function confirmBatch(
  batch: UnitBatch,
  task: Pick<Task, 'expiresAt'>,
  written: WrittenBatch,
  { published, recorded }: BatchLanding,
  deps: Pick<DeliverBatchDeps, 'confirmed'>,
): Promise<void> {
  // Awaited below, maybe after a failed publish: handled now, so its failure is never an unhandled rejection.
  recorded?.catch(() => undefined);
  const to = batch.offset + batch.uins.length;
  const { online: delivered, offline } = written.outcome;
  // Before the progress report: a batch the scheduler counts is always in the reports stream.
  await published;
  // Before the progress report, as the confirmed-batch log: every position a checkpoint passed has its record.
  // (A record may land before the publish: it is replaced, same key, if the batch comes again.)
  await recorded;
  // Kept after the unit's last batch too: a new owner resumes a finished stream from a checkpoint that
  // may lag far behind it (its predecessor died with progress unread), and must not deliver it again.
  // After the reports stream (a batch replayed from here is not published again), before the progress report.
  await deps.confirmed.record(batch.taskId, batch.unitNo, batch.offset, { to, delivered, offline }, task.expiresAt);
}

/** Distinct dead-letter reasons one progress report carries (unit.progress v2); the rest count as `other`. */
const MAX_REASONS = 64;

/**
 * The batch's rejections under the reasons they are counted by: the channel's
 * own while it is a short token and among the batch's first 63 reasons,
 * `other` beyond. The delivery record keeps the same labels, so the rows of
 * the report and the task's dead-letter counts agree.
 */
function labelled(rejected: readonly RecipientRejection[]): RecipientRejection[] {
  const labels = new Set<string>();
  return rejected.map(({ uin, reason }) => {
    const label =
      labels.has(reason) || (labels.size < MAX_REASONS - 1 && DEAD_LETTER_REASON.test(reason)) ? reason : 'other';
    labels.add(label);
    return { uin, reason: label };
  });
}

function countByReason(rejected: readonly RecipientRejection[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { reason } of rejected) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/**
 * Appends to offline lists, under the task's collapse scope if it has one (a
 * newer task of the scope supersedes it there), and with the batch's
 * local-time group if it has one: the store keeps each group's records apart,
 * so a group's appends never rewrite the earlier groups' (docs/local-time.md).
 */
function appendOffline(store: OfflineStore, task: Task, batch: UnitBatch, uins: Uint32Array): Promise<void> {
  const collapseScope = collapseScopeOf(task);
  const group = localGroupAt(task, batch.offset);
  const options: OfflineAppendOptions = {};
  if (collapseScope !== undefined) options.collapseScope = collapseScope;
  if (group !== undefined) options.group = group;
  return store.append(task.id, task.expiresAt, uins, options);
}

/** Counts a delivery for frequency control, each user on their own local day at the delivery (docs/frequency.md). */
async function countDelivery(frequency: FrequencyControl, taskId: number, reached: Uint32Array, clock: Clock) {
  await frequency.counter.consume(await usesOf(frequency, taskId, reached, clock.now()));
}
