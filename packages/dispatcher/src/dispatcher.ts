import { EpochFloor } from '@herald/core/task';
import { isHeraldError } from '@herald/core';
import { noopLogger, noopMeter, systemClock, type Clock, type Logger, type Meter } from '@herald/core/ports';
import type { HeraldConfig } from '@herald/core/config';
import type { ReceivedLoad } from '@herald/core/dispatch';
import type { ListRepository } from '@herald/audience';
import type {
  HostLoadMessage,
  Message,
  PreprocessRequest,
  PullChannel,
  PushChannel,
  TaskHalt,
  UnitRun,
} from '@herald/transport';
import type { RecipientFilter } from './filters/filter';
import type { RolloutSource } from './filters/holdout';
import { HostLoads } from './host-loads';
import { replanDecision } from './replan';
import { sendReplan } from './send-replan';
import { StreamTargets } from './stream-targets';
import { runPreprocessJob } from './preprocess-job';
import type { LocalTimeSource } from './local-groups';
import { sendUnitBatches } from './unit-stream';
import { dispatcherMetrics } from './dispatcher-metrics';

export interface DispatcherDeps {
  config: HeraldConfig;
  /** Commands from the scheduler: preprocess.request, unit.run, task.halt; and the executors' host.load reports. */
  inbox: PullChannel;
  toScheduler: PushChannel;
  /** The channel to each executor, by id (one PUSH per executor host). */
  toExecutor: ReadonlyMap<string, PushChannel>;
  /**
   * The channel to each executor's real-time inbox, by id, where it has one: a
   * real-time unit's batches go there, so they are not queued behind the
   * normal batches already in the executor's inbox (at most the batch in hand
   * is ahead of them). An executor without one gets them in its inbox. A
   * task.halt that closes its epoch is forwarded here too, to the executors
   * this dispatcher streamed the task to, so that they drop its batches still
   * queued (docs/scheduling.md, "The bound").
   */
  toRealtimeExecutor?: ReadonlyMap<string, PushChannel>;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  /** The tasks' rollouts, read from the task store: a canary's sample goes first (docs/rollouts.md). */
  rollouts?: RolloutSource;
  /** Stamps each host.load report on arrival (what its age is counted from). Default: the system clock. */
  clock?: Clock;
  /** Local-time delivery (local-groups.ts, docs/local-time.md): its task reader, zones and clock. */
  localTime?: LocalTimeSource;
  logger?: Logger;
  meter?: Meter;
}

export interface Dispatcher {
  /** Resolves when the inbox closes and every stream has stopped. */
  readonly done: Promise<void>;
  /** Unit streams and pre-processing jobs running now (a drain waits for none). */
  busy(): number;
  /** The latest host.load report of each executor, with when it arrived and its age now (this dispatcher's clock). */
  loads(): (ReceivedLoad & { ageMs: number })[];
}

/** Tasks whose executors are remembered for forwarding a halt; past it the least recently streamed is forgotten. */
const TARGET_MEMORY = 65_536;

/** One unit's stream of batches, under the owner epoch of the unit.run that started it. */
interface Stream {
  readonly epoch: number;
  halted: boolean;
}

/**
 * The dispatcher tier: pre-processes tasks (one at a time: it is CPU and
 * memory heavy) and streams each execution unit's recipients to its executor
 * in batches. Streams run concurrently; each awaits the executor's socket, so
 * a slow executor slows its streams (ZeroMQ high-water mark) and nothing else.
 *
 * The send path is fenced by the owner epoch (docs/apta.md): per task the
 * dispatcher remembers the highest epoch seen in a unit.run or task.halt.
 * - A unit.run below it comes from a deposed owner: dropped and counted.
 * - A unit.run above it means a new owner took the task: every stream of the
 *   task under an older epoch stops (not only that unit's: the new owner
 *   re-runs every unfinished unit from its checkpoint). A unit.run at the same
 *   epoch replaces that unit's stream only (a resume by the same owner).
 * - A task.halt stops the task's streams whose epoch is at most its own, so a
 *   deposed owner's late halt never stops its successor's streams.
 * A stopped stream sends nothing more; the batch it was handing to the socket
 * at that moment still goes (the one batch in flight).
 *
 * A unit.run naming an executor that stopped sending host.load reports while
 * another still does is not streamed (ZeroMQ would queue it for a host that
 * may never return): the owner gets a unit.replan naming a live executor
 * instead (replan.ts; docs/operations.md, "An executor lost").
 *
 * What is already on its way cannot be called back, so a halt that closes its
 * epoch (`closesEpoch`: the owner will resume the task, if ever, under a new
 * one) is forwarded to the real-time inbox of every executor this dispatcher
 * streamed the task to: there it overtakes the task's queued batches, and the
 * executor drops them unstarted (batch-fence.ts). Forwarded without waiting, so a
 * full real-time link never holds up this inbox; a channel sends in call
 * order, so the halt still goes ahead of every batch streamed after it.
 */
export function startDispatcher(deps: DispatcherDeps): Dispatcher {
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const {
    batchesSent,
    recipientsSent,
    staleRuns,
    superseded,
    preprocessed,
    filtered,
    preprocessSeconds,
    preprocessStageSeconds,
    errors,
    preprocessQueue,
    activeStreams,
    forwardedHalts,
    loadReports,
    unitPlans,
    replans,
  } = dispatcherMetrics(meter);
  let preprocessWaiting = 0;
  const countStreams = () => {
    let n = 0;
    for (const units of streams.values()) n += units.size;
    activeStreams.set(n);
  };
  /** Per task, the live stream of each unit. */
  const streams = new Map<number, Map<number, Stream>>();
  /** Per task, the highest owner epoch seen (LRU-bounded). */
  const epochs = new EpochFloor();
  /** Per task, the executors its streams here were sent to (LRU-bounded): where a closing halt is forwarded. */
  const targets = new StreamTargets(
    [...deps.toExecutor.keys(), ...(deps.toRealtimeExecutor?.keys() ?? [])],
    TARGET_MEMORY,
  );
  const clock = deps.clock ?? systemClock;
  /** Each executor's latest load report: the unit plans follow them (plan-units.ts). */
  const hostLoads = new HostLoads(deps.config.load.maxReportAgeMs);
  const executorIds = [...deps.toExecutor.keys()];
  const running = new Set<Promise<void>>();
  let preprocessing: Promise<void> = Promise.resolve();

  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };

  const runPreprocess = (request: PreprocessRequest) =>
    runPreprocessJob(request, {
      config: deps.config,
      lists: deps.lists,
      filters: deps.filters,
      ...(deps.rollouts === undefined ? {} : { rollouts: deps.rollouts }),
      toScheduler: deps.toScheduler,
      executorIds,
      hostLoads,
      clock,
      ...(deps.localTime === undefined ? {} : { localTime: deps.localTime }),
      logger,
      metrics: { preprocessed, filtered, preprocessSeconds, preprocessStageSeconds, errors, unitPlans },
    }).finally(() => preprocessQueue.set(--preprocessWaiting));

  /** The highest epoch known for a task: remembered, or held by one of its live streams. */
  function highestEpoch(taskId: number): number | undefined {
    let high = epochs.get(taskId);
    for (const stream of streams.get(taskId)?.values() ?? [])
      if (!stream.halted && (high === undefined || stream.epoch > high)) high = stream.epoch;
    return high;
  }

  /** Applies the fence to a unit.run; returns the stream to run, or undefined when the run is stale. */
  function startStream(run: UnitRun): Stream | undefined {
    const high = highestEpoch(run.taskId);
    if (high !== undefined && run.epoch < high) {
      staleRuns.inc();
      logger.warn('unit.run of a deposed owner dropped', {
        taskId: run.taskId,
        unitNo: run.unitNo,
        epoch: run.epoch,
        current: high,
      });
      return undefined;
    }
    epochs.admit(run.taskId, run.epoch);
    let units = streams.get(run.taskId);
    if (units === undefined) streams.set(run.taskId, (units = new Map<number, Stream>()));
    for (const [unitNo, stream] of units) {
      if (stream.halted || (stream.epoch === run.epoch && unitNo !== run.unitNo)) continue;
      stream.halted = true; // the same unit re-run, or any stream of an older owner
      if (stream.epoch < run.epoch) {
        superseded.inc();
        logger.info('unit stream superseded by a newer owner', {
          taskId: run.taskId,
          unitNo,
          epoch: stream.epoch,
          by: run.epoch,
        });
      }
    }
    const stream: Stream = { epoch: run.epoch, halted: false };
    units.set(run.unitNo, stream);
    countStreams();
    targets.remember(run.taskId, run.executorId);
    return stream;
  }

  /**
   * When the run's executor stopped reporting while another reports
   * (replan.ts), streams nothing: its batches would wait in ZeroMQ for a host
   * that may never return. Stops the unit's stream here (its batches to the
   * silent executor) and proposes a live executor to the owner, which records
   * the move and sends the unit.run again. True when it did.
   */
  function proposeMove(run: UnitRun): boolean {
    const decision = replanDecision({
      named: run.executorId,
      executorIds,
      loads: hostLoads.latest(),
      now: clock.now(),
      maxReportAgeMs: deps.config.load.maxReportAgeMs,
    });
    if (!decision.move) return false;
    const high = highestEpoch(run.taskId);
    if (high !== undefined && run.epoch < high) return false; // a deposed owner's: startStream drops and counts it
    epochs.admit(run.taskId, run.epoch);
    const stream = streams.get(run.taskId)?.get(run.unitNo);
    if (stream !== undefined && stream.epoch <= run.epoch) stream.halted = true;
    replans.inc({ reason: decision.reason });
    logger.warn('unit.run names an executor that stopped reporting: proposing a live one', {
      taskId: run.taskId,
      unitNo: run.unitNo,
      epoch: run.epoch,
      from: run.executorId,
      to: decision.to,
      reason: decision.reason,
    });
    track(sendReplan(deps.toScheduler, run, decision.to, logger));
    return true;
  }

  async function streamUnit(run: UnitRun, state: Stream): Promise<void> {
    try {
      const channel =
        (run.realtime ? deps.toRealtimeExecutor?.get(run.executorId) : undefined) ??
        deps.toExecutor.get(run.executorId);
      if (channel === undefined) {
        logger.error('unit names an unknown executor', {
          taskId: run.taskId,
          unitNo: run.unitNo,
          executorId: run.executorId,
        });
        return;
      }
      await sendUnitBatches(run, state, channel, {
        pathOf: (listId) => deps.lists.pathOf(listId),
        batchSize: deps.config.dispatcher.batchSize,
        logger,
        sent: (recipients) => {
          batchesSent.inc();
          recipientsSent.inc(undefined, recipients);
        },
      });
    } catch (error) {
      // A closed channel means this process is stopping: the unit resumes from its checkpoint elsewhere or later.
      const stopping = isHeraldError(error) && error.code === 'UNAVAILABLE';
      if (!stopping) errors.inc({ code: isHeraldError(error) ? error.code : 'INTERNAL' });
      logger[stopping ? 'debug' : 'error']('unit stream ended early', {
        taskId: run.taskId,
        unitNo: run.unitNo,
        error: String(error),
      });
    } finally {
      const units = streams.get(run.taskId);
      if (units?.get(run.unitNo) === state) units.delete(run.unitNo);
      if (units?.size === 0) streams.delete(run.taskId);
      countStreams();
    }
  }

  /**
   * Stops the task's streams at or below the halt's epoch; a halt proves an
   * owner at that epoch, so it raises the floor too. A halt that closes its
   * epoch goes on to the executors the task was streamed to (see above).
   */
  function haltTask(halt: TaskHalt): void {
    if (!epochs.admit(halt.taskId, halt.epoch))
      logger.debug('task.halt of a deposed owner: stops only its own streams', {
        taskId: halt.taskId,
        epoch: halt.epoch,
      });
    for (const stream of streams.get(halt.taskId)?.values() ?? []) if (stream.epoch <= halt.epoch) stream.halted = true;
    if (halt.closesEpoch !== true) return;
    for (const executorId of targets.of(halt.taskId)) {
      const channel = deps.toRealtimeExecutor?.get(executorId);
      if (channel === undefined) continue; // no link that overtakes its queue: the halt would arrive after the batches it is about
      forwardedHalts.inc();
      track(
        channel.send(halt).catch((error: unknown) => {
          // Only a shortcut: the executor delivers what it holds, and the checkpoints stay right either way.
          logger.debug('task.halt not forwarded to an executor', {
            taskId: halt.taskId,
            executorId,
            error: String(error),
          });
        }),
      );
    }
  }

  function recordLoad({ report }: HostLoadMessage): void {
    loadReports.inc();
    // Only the executors it can send to: so the book stays as small as the topology.
    if (deps.toExecutor.has(report.executorId)) hostLoads.record(report, clock.now());
    else
      logger.debug('host.load from an executor this dispatcher has no link to: ignored', {
        executorId: report.executorId,
      });
  }

  async function handle(message: Message): Promise<void> {
    switch (message.kind) {
      case 'preprocess.request':
        preprocessQueue.set(++preprocessWaiting);
        preprocessing = preprocessing.then(() => runPreprocess(message));
        track(preprocessing);
        return;
      case 'unit.run': {
        if (proposeMove(message)) return;
        const stream = startStream(message);
        if (stream !== undefined) track(streamUnit(message, stream));
        return;
      }
      case 'task.halt':
        haltTask(message);
        return;
      case 'host.load':
        recordLoad(message);
        return;
      default:
        logger.warn('dispatcher ignores a message not meant for it', { kind: message.kind });
    }
  }

  const done = (async () => {
    for await (const message of deps.inbox.messages()) await handle(message);
    for (const units of streams.values()) for (const stream of units.values()) stream.halted = true;
    await Promise.allSettled([...running]);
  })();
  const loads = () => {
    const now = clock.now();
    return hostLoads
      .latest()
      .map(({ report, receivedAt }) => ({ report, receivedAt, ageMs: Math.max(0, now - receivedAt) }));
  };
  return { done, busy: () => running.size, loads };
}
