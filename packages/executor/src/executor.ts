import { isHeraldError, redactSecrets } from '@herald/core';
import { noopLogger, systemClock, noopMeter } from '@herald/core/ports';
import type { ChannelHold } from '@herald/core/task';
import type { PullChannel, UnitBatch, UnitProgressMessage } from '@herald/transport';
import { MemoryConfirmedBatchLog } from './memory-confirmed-batch-log';
import { Pacer } from './pacer';
import { Personaliser } from './personalise';
import { Prefetch, type Lane, type PrefetchSource } from './prefetch';
import { movedBatchGuard } from './unit-assignments';
import { executorMetrics } from './executor-metrics';
import { confirmBatch, publishReport, recordOf, writeBatch, type DeliverBatchDeps } from './deliver-batch';
import { GroupedPublisher, REPORTS_PER_PUBLISH } from './grouped-publisher';
import { RecordGroup } from './record-group';
import { ConfirmationLine } from './confirmation-line';
import { quietHoldOf } from './quiet-hours';
import { BatchFence } from './batch-fence';

import type { Executor, ExecutorDeps } from './executor-deps';

export type { Executor, ExecutorDeps };

/**
 * Messages each inbox's reader pulls ahead of the worker, at most. Two are
 * enough for the worker never to wait on the socket between batches; more
 * would only move the queue from ZeroMQ, where the high-water mark pushes
 * back on the dispatchers, into this process. (What a preempted task still
 * has on its way, here or in the socket, is dropped unstarted once its halt
 * is read: docs/scheduling.md, "The bound".)
 */
export const PREFETCH = 2;

/**
 * Batches confirmed (reports stream, delivery record, confirmed-batch log,
 * progress report) while the worker writes the next one, at most
 * (confirmation-line.ts). Four absorb a record write that is slow now and
 * then on a loaded host; a crash then leaves at most five batches unreported,
 * all sent again from their checkpoints.
 */
export const CONFIRMATIONS_IN_FLIGHT = 4;

/**
 * Delivery records written as one LevelDB write, at most (record-group.ts):
 * one fewer than the confirmations in line, so the group's write is under
 * way while the worker writes one more batch before the line is full.
 */
export const RECORDS_PER_WRITE = CONFIRMATIONS_IN_FLIGHT - 1;

/** How long a record waits for the rest of its group, at most (a paced task's batches come slowly). */
export const RECORD_HOLD_MS = 20;

/** How often a channel hold's report is repeated while it lasts, by default: a third of the default unitStallMs. */
export const HOLD_REPORT_EVERY_MS = 10_000;

/** A channel's refusal reason is cut to this in a progress report: it is the task's error message. */
const MAX_REFUSAL_CHARS = 500;

/**
 * The executor tier: walks each batch of a unit, pushes online users through
 * the delivery gateway, appends offline users to their offline lists, and
 * reports the batch to the scheduler, which checkpoints the unit.
 *
 * A batch is reported only after its writes finished (delivery, offline
 * lists, and with frequency control the count of its online users) and it
 * was confirmed (reports stream, delivery record, ConfirmedBatchLog), so a
 * crash can only repeat a batch (same idempotency keys; counting is
 * idempotent by task), never lose one, and every batch in the reports stream
 * is counted: no replay of the stream is needed to rebuild the counts. A
 * batch is confirmed and reported while the worker writes the next ones
 * (confirmation-line.ts: one at a time, in order). A
 * batch already confirmed (a unit re-run from an older checkpoint; recorded in
 * the ConfirmedBatchLog, which in production outlives the process, so a crash
 * repeats only the batches in hand, at most five) is not
 * delivered again but reported again, with the counts it had: the scheduler
 * ignores the report when its checkpoint is past the batch, and needs it when
 * its checkpoint is still there (a report it lost, e.g. in the inbox of a
 * scheduler that restarted), or every later report of the unit would be
 * ignored too. Only the exact batch counts as confirmed, so a batch that
 * failed is written when it comes again, even after later batches of its
 * unit succeeded.
 *
 * The last fence of the send path (docs/apta.md): per task the executor
 * remembers the highest owner epoch seen in a batch, and refuses a batch
 * below it, or below the task's epoch as the task cache read it from the
 * store: it comes from a deposed owner's stream, so it is neither delivered
 * nor reported, only counted (herald_executor_stale_batches_total). What this
 * executor confirmed is kept across epochs, so a new owner resuming from an
 * older checkpoint gets those batches reported, not delivered again.
 *
 * Halted tasks stop here within the batch in hand (docs/scheduling.md, "The
 * bound"): a task.halt that closes its epoch (forwarded by a dispatcher on the
 * real-time inbox, ahead of the normal batches queued in the main one) is
 * remembered per task, and from then on a batch of the task at or below that
 * epoch is dropped unstarted, neither delivered nor reported
 * (herald_executor_halted_batches_total): read from a socket, it is not even
 * prefetched; waiting in the prefetch, the worker skips it. Its unit's
 * checkpoint stays before it, and the owner resumes the task, if ever, under a
 * new epoch, whose batches pass. So what a preempted or paused task still had
 * on its way costs nothing, and a real-time task's batches wait for at most
 * the one batch being delivered.
 *
 * A real-time lane: readers move batches from the inboxes into a bounded
 * prefetch (prefetch.ts, at most `prefetch` untaken messages per inbox, so a
 * full prefetch leaves the rest in the socket and ZeroMQ pushes back as
 * before), split by the task's priority class; one worker handles them one at
 * a time, real-time lane first. A task's batches stay in arrival order. On
 * close the batch in hand finishes and the prefetch is abandoned, unreported.
 */
export function startExecutor(deps: ExecutorDeps): Executor {
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const { delivered, queued, dropped, stale, halted, busy, errors, prefetched, pacedRecipients, quietHeld } =
    executorMetrics(meter);
  const labels = { executor: deps.id };
  const clock = deps.clock ?? systemClock;
  const holdReportEveryMs = deps.holdReportEveryMs ?? HOLD_REPORT_EVERY_MS;
  const personaliser = deps.personaliser ?? new Personaliser(undefined, logger);
  const fence = new BatchFence({ halted: () => halted.inc(labels), stale: () => stale.inc(labels) }, logger);
  let stop!: () => void;
  const pacer =
    deps.pacing === undefined
      ? undefined
      : new Pacer(deps.pacing, clock, new Promise<void>((resolve) => (stop = resolve)), (count) =>
          pacedRecipients.inc(labels, count),
        );

  /** Whether a batch's unit moved to another executor while this one was silent (unit-assignments.ts). */
  const isMoved =
    deps.assignments === undefined
      ? async () => false
      : movedBatchGuard({ store: deps.assignments, executorId: deps.id, clock, logger, meter });

  /** The batches confirmed here, by unit and offset: their end and their counts. */
  const confirmed = deps.confirmed ?? new MemoryConfirmedBatchLog();

  const report = (
    batch: UnitBatch,
    to: number,
    delivered: number,
    offline: number,
    extra: Pick<UnitProgressMessage, 'deadLetters' | 'refused' | 'channel' | 'quietUntil'> = {},
  ) =>
    deps.toScheduler.send({
      kind: 'unit.progress',
      taskId: batch.taskId,
      epoch: batch.epoch,
      unitNo: batch.unitNo,
      from: batch.offset,
      to,
      delivered,
      offline,
      done: batch.last,
      ...extra,
    });

  /**
   * Tells the scheduler, while `batch` is being delivered, each time the
   * channel starts or stops holding it: a report covering no recipients
   * (from = to), which the scheduler records as the task's channel state.
   * While a hold lasts it is told again every `holdReportEveryMs`: nothing
   * of the executor's units moves then, and the repeats are what tells the
   * scheduler's stall watch they wait for the channel rather than are lost.
   * Returns the unsubscribe.
   */
  function reportHolds(batch: UnitBatch): () => void {
    const channel = deps.channel;
    if (channel === undefined) return () => undefined;
    let repeat: ReturnType<typeof setInterval> | undefined;
    const send = (hold: ChannelHold | undefined) =>
      void report({ ...batch, last: false }, batch.offset, 0, 0, hold === undefined ? {} : { channel: hold }).catch(
        (error: unknown) => {
          // A closed channel: this process is stopping, and the batch in hand goes again from its checkpoint.
          if (isHeraldError(error) && error.code === 'UNAVAILABLE') return clearInterval(repeat);
          logger.warn('channel hold not reported', { taskId: batch.taskId, error });
        },
      );
    const tell = (hold: ChannelHold | undefined) => {
      clearInterval(repeat);
      repeat = hold === undefined ? undefined : setInterval(() => send(hold), holdReportEveryMs).unref();
      send(hold);
    };
    const held = channel.hold();
    if (held !== undefined) tell(held);
    const unwatch = channel.watchHold(tell);
    return () => {
      clearInterval(repeat);
      unwatch();
    };
  }

  const deliverDeps: DeliverBatchDeps = {
    executorId: deps.id,
    online: deps.online,
    gateway: deps.gateway,
    offline: deps.offline,
    frequency: deps.frequency,
    ...(deps.zones ? { zones: deps.zones } : {}),
    ...(deps.reports ? { reports: new GroupedPublisher(deps.reports, REPORTS_PER_PUBLISH) } : {}),
    // Read by writeBatch only, to split each batch with its record's bits; the records are written by the group below.
    ...(deps.records ? { records: deps.records } : {}),
    confirmed,
    personaliser,
    clock,
    // The group's hand-over to the thread pool while the worker waits for this batch's writes anyway.
    whileWriting: () => records?.writeIfFull(),
    counted: (online, offline) => {
      delivered.inc(labels, online);
      queued.inc(labels, offline);
    },
  };

  /** Not reported, so the scheduler's checkpoint stays before this batch and a re-run repeats it. */
  function notConfirmed(batch: Pick<UnitBatch, 'taskId' | 'unitNo' | 'offset'>, error: unknown): void {
    // UNAVAILABLE is a closed channel: this process is stopping.
    const stopping = isHeraldError(error) && error.code === 'UNAVAILABLE';
    if (!stopping) errors.inc({ ...labels, code: isHeraldError(error) ? error.code : 'INTERNAL' });
    logger[stopping ? 'debug' : 'error']('batch not confirmed', {
      taskId: batch.taskId,
      unitNo: batch.unitNo,
      offset: batch.offset,
      error: String(error),
    });
  }
  const records = deps.records && new RecordGroup(deps.records, RECORDS_PER_WRITE, RECORD_HOLD_MS);
  const confirmations = new ConfirmationLine(notConfirmed, CONFIRMATIONS_IN_FLIGHT, () => records?.flush());

  /** Real-time batches, handled while a normal task's batch waits for its tokens. */
  const realtimeMeanwhile = {
    watch: () => prefetch.watchRealtime(),
    async run() {
      for (let batch = prefetch.takeRealtime(); batch !== undefined; batch = prefetch.takeRealtime()) {
        prefetched.set(prefetch.size, labels);
        await handleCounted(batch);
      }
    },
  };

  /** Returns the milliseconds it waited for the task's tokens (not busy time). */
  async function handle(batch: UnitBatch): Promise<number> {
    const to = batch.offset + batch.uins.length;
    const since = clock.now();
    if (fence.isHalted(batch) || fence.isStale(batch, fence.known(batch.taskId) ?? batch.epoch)) return 0;
    // Before the confirmed-batch log too: a unit that moved gets no report from here, not even a replayed one.
    if (await isMoved(batch, since)) return 0;
    const task = await deps.tasks.get(batch.taskId);
    if (task === undefined) {
      dropped.inc(labels);
      logger.warn('batch for an unknown task dropped', { taskId: batch.taskId, unitNo: batch.unitNo });
      return 0;
    }
    // The cached task's epoch is the owner's when it was read: a lower bound, which also covers a task forgotten above.
    if (fence.isStale(batch, fence.raise(batch.taskId, Math.max(batch.epoch, task.epoch)))) return 0;
    await confirmations.settledFor(batch);
    const seen = await confirmed.get(batch.taskId, batch.unitNo, batch.offset);
    if (seen !== undefined && seen.to === to) {
      // In line: after the reports of the batches written before it.
      await confirmations.enqueue(batch, () => report(batch, to, seen.delivered, seen.offline));
      return 0;
    }
    // Inside the task's quiet hours now (during 'hold'): none of it goes, and the scheduler holds its unit
    // from this batch until they end (docs/local-time.md, "Held, or queued offline").
    const quietUntil = await quietHoldOf(task, batch.uins, deps.zones, since);
    if (quietUntil !== undefined) {
      quietHeld.inc(labels, batch.uins.length);
      // In line too: the hold takes the unit away, so the reports of the batches written before it go first.
      await confirmations.enqueue(batch, () => report({ ...batch, last: false }, batch.offset, 0, 0, { quietUntil }));
      return 0;
    }
    const pacingFrom = performance.now();
    // Stopped while waiting for the task's tokens: not delivered, not reported; it comes again from its checkpoint.
    if (
      pacer !== undefined &&
      !(await pacer.admit(task, batch.uins.length, task.priority === 'realtime' ? undefined : realtimeMeanwhile))
    )
      return performance.now() - pacingFrom;
    const pacedMs = performance.now() - pacingFrom;
    const unwatch = reportHolds(batch);
    const written = await writeBatch(batch, task, deliverDeps).finally(unwatch);
    // Its record goes in the group now, written with the next batches' (a write per group, not per batch).
    const recorded = records?.add(recordOf(batch, written, deliverDeps));
    // Published now, beside the confirmations in line before it (and with the reports written meanwhile).
    const published = publishReport(batch, task, written, deliverDeps);
    // Confirmed and reported while the next batch is written: its publish and record landed, then its progress report.
    await confirmations.enqueue(batch, async () => {
      await confirmBatch(batch, task, written, { published, recorded }, deliverDeps);
      const split = written.outcome;
      // Sending again: this report clears a hold the scheduler recorded.
      await report(batch, to, split.online, split.offline, {
        deadLetters: split.deadLetters,
        // It becomes the task's error, which operators read: a channel URL's credentials stay out of it.
        ...(split.refused === undefined ? {} : { refused: redactSecrets(split.refused).slice(0, MAX_REFUSAL_CHARS) }),
      });
    });
    return pacedMs;
  }

  /** The lane a batch of the main inbox waits in: its task's priority class; normal when the task is unknown or cannot be read (handle() decides then). */
  async function laneOf(batch: UnitBatch): Promise<Lane> {
    try {
      return (await deps.tasks.get(batch.taskId))?.priority === 'realtime' ? 'realtime' : 'normal';
    } catch {
      return 'normal';
    }
  }

  /**
   * Moves an inbox's batches into the prefetch, pulling the next message only
   * while this inbox holds fewer than its share. Other messages are handled
   * as they are read, ahead of the batches waiting: a login only queues a
   * walk (never waits), and the bitmap already shows the user online, so a
   * batch handled later delivers to them directly; a halt only marks its
   * task. A halted task's batch is dropped as it is read, without taking room,
   * so the socket's queue of them drains at once.
   */
  async function read(inbox: PullChannel, source: PrefetchSource, lane: Lane | undefined): Promise<void> {
    if (!(await source.room())) return;
    for await (const message of inbox.messages()) {
      if (message.kind === 'user.logins' && deps.logins !== undefined) {
        deps.logins.enqueue(message.uins);
        continue;
      }
      if (message.kind === 'task.halt') {
        fence.onHalt(message);
        continue;
      }
      if (message.kind !== 'unit.batch') {
        logger.warn('executor ignores a message not meant for it', { kind: message.kind });
        continue;
      }
      if (fence.isHalted(message)) continue;
      prefetch.put(source, lane ?? (await laneOf(message)), message.taskId, message);
      prefetched.set(prefetch.size, labels);
      if (!(await source.room())) return; // closed: what is still in the socket stays there
    }
  }

  /** Handles a batch, counting its errors and its busy time (less its pacing wait, and the batches handled during that wait, which count their own). */
  async function handleCounted(batch: UnitBatch): Promise<void> {
    const started = performance.now();
    let pacedMs = 0;
    try {
      pacedMs = await handle(batch);
    } catch (error) {
      notConfirmed(batch, error);
    } finally {
      busy.inc(labels, (performance.now() - started - pacedMs) / 1000);
    }
  }

  /**
   * The next batch. When none is waiting (none may come soon), the records kept for a group are written at
   * the end of this turn of the event loop, not now: a batch already on its way is read first, and the
   * hand-over then overlaps its writes instead of holding it up.
   */
  function nextBatch(): Promise<UnitBatch | undefined> {
    if (prefetch.size === 0) records?.flushSoon();
    return prefetch.take();
  }

  async function work(): Promise<void> {
    for (let batch = await nextBatch(); batch !== undefined; batch = await nextBatch()) {
      prefetched.set(prefetch.size, labels);
      await handleCounted(batch);
    }
    // The batch in hand is reported before the worker is done (the last confirmation in line).
    await confirmations.drained();
  }

  const prefetch = new Prefetch<UnitBatch>();
  const capacity = deps.prefetch ?? PREFETCH;
  const main = prefetch.source(capacity);
  const worker = work();
  if (deps.realtimeInbox !== undefined) {
    void read(deps.realtimeInbox, prefetch.source(capacity), 'realtime').catch((error: unknown) =>
      logger.error('real-time inbox no longer read; its units stall until re-run from their checkpoints', {
        error: String(error),
      }),
    );
  }
  const done = (async () => {
    try {
      await read(deps.inbox, main, undefined);
    } finally {
      // The inbox closed: the batch in hand finishes; what waits in the prefetch is abandoned, as
      // ZeroMQ drops what its closed socket still held. None of it was reported, so all of it comes
      // again from the units' checkpoints. A reader that was waiting for room sees the close only once
      // the worker takes a message: that one is still handled, one batch more than the one in hand.
      const abandoned = prefetch.close();
      if (abandoned > 0) logger.debug('executor stopping: prefetched batches abandoned', { abandoned });
      stop?.(); // a batch waiting for its task's tokens is abandoned too
      await worker;
    }
  })();
  return { done };
}
