import { isHeraldError, noopLogger, noopMeter, type HeraldConfig, type Logger, type Meter } from '@herald/core';
import type { ListRepository } from '@herald/audience';
import type { Message, PreprocessRequest, PullChannel, PushChannel, UnitRun } from '@herald/transport';
import type { RecipientFilter } from './filters/filter';
import { preprocess } from './preprocess';
import { readListRange } from './read-range';

export interface DispatcherDeps {
  config: HeraldConfig;
  /** Commands from the scheduler: preprocess.request, unit.run, task.halt. */
  inbox: PullChannel;
  toScheduler: PushChannel;
  /** The channel to each executor, by id (one PUSH per executor host). */
  toExecutor: ReadonlyMap<string, PushChannel>;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  logger?: Logger;
  meter?: Meter;
}

export interface Dispatcher {
  /** Resolves when the inbox closes and every stream has stopped. */
  readonly done: Promise<void>;
}

/**
 * The dispatcher tier: pre-processes tasks (one at a time: it is CPU and
 * memory heavy) and streams each execution unit's recipients to its executor
 * in batches. Streams run concurrently; each awaits the executor's socket, so
 * a slow executor slows its streams (ZeroMQ high-water mark) and nothing else.
 */
export function startDispatcher(deps: DispatcherDeps): Dispatcher {
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const batchesSent = meter.counter('herald_dispatcher_batches_total', 'Recipient batches sent to executors');
  const recipientsSent = meter.counter('herald_dispatcher_recipients_total', 'Recipients sent to executors');
  /** The live stream of each unit; a newer unit.run for the same unit supersedes the older one. */
  const streams = new Map<string, { halted: boolean }>();
  const running = new Set<Promise<void>>();
  let preprocessing: Promise<void> = Promise.resolve();

  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };

  async function runPreprocess(request: PreprocessRequest): Promise<void> {
    try {
      const result = await preprocess(request, {
        config: deps.config,
        lists: deps.lists,
        filters: deps.filters,
        executorLoads: () => [...deps.toExecutor.keys()].map((id) => ({ id, pending: 0 })),
        logger,
      });
      await deps.toScheduler.send(result);
    } catch (error) {
      logger.error('pre-processing failed', { taskId: request.taskId, error: String(error) });
      await deps.toScheduler.send({
        kind: 'preprocess.result',
        ok: false,
        taskId: request.taskId,
        epoch: request.epoch,
        errorCode: isHeraldError(error) ? error.code : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async function streamUnit(run: UnitRun): Promise<void> {
    const key = `${run.taskId}:${run.unitNo}`;
    const previous = streams.get(key);
    if (previous) previous.halted = true;
    const state = { halted: false };
    streams.set(key, state);
    const channel = deps.toExecutor.get(run.executorId);
    if (channel === undefined) {
      logger.error('unit names an unknown executor', { taskId: run.taskId, unitNo: run.unitNo, executorId: run.executorId });
      return;
    }
    try {
      const path = deps.lists.pathOf(run.filteredListId);
      let offset = run.from;
      for await (const uins of readListRange(path, run.from, run.end, deps.config.dispatcher.batchSize)) {
        if (state.halted) return;
        const last = offset + uins.length >= run.end;
        await channel.send({ kind: 'unit.batch', taskId: run.taskId, epoch: run.epoch, unitNo: run.unitNo, offset, last, uins });
        batchesSent.inc();
        recipientsSent.inc(undefined, uins.length);
        offset += uins.length;
      }
    } catch (error) {
      // A closed channel means this process is stopping: the unit resumes from its checkpoint elsewhere or later.
      const stopping = isHeraldError(error) && error.code === 'UNAVAILABLE';
      (stopping ? logger.debug : logger.error)('unit stream ended early', { taskId: run.taskId, unitNo: run.unitNo, error: String(error) });
    } finally {
      if (streams.get(key) === state) streams.delete(key);
    }
  }

  function haltTask(taskId: number): void {
    for (const [key, state] of streams) if (key.startsWith(`${taskId}:`)) state.halted = true;
  }

  async function handle(message: Message): Promise<void> {
    switch (message.kind) {
      case 'preprocess.request':
        preprocessing = preprocessing.then(() => runPreprocess(message));
        track(preprocessing);
        return;
      case 'unit.run':
        track(streamUnit(message));
        return;
      case 'task.halt':
        haltTask(message.taskId);
        return;
      default:
        logger.warn('dispatcher ignores a message not meant for it', { kind: message.kind });
    }
  }

  const done = (async () => {
    for await (const message of deps.inbox.messages()) await handle(message);
    for (const state of streams.values()) state.halted = true;
    await Promise.allSettled([...running]);
  })();
  return { done };
}
