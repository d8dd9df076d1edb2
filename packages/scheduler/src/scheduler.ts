import { ConfigError } from '@herald/core';
import { HashRing } from '@herald/core/ring';
import {
  noopLogger,
  noopMeter,
  systemClock,
  type Clock,
  type Logger,
  type Meter,
  type TaskStore,
} from '@herald/core/ports';
import type { HeraldConfig } from '@herald/core/config';
import type { Message, PullChannel, PushChannel } from '@herald/transport';
import { createAdmission } from './admission';
import { schedulerContext } from './context';
import { createHalts } from './halts';
import { JobLoop } from './job-loop';
import { createOwnership, type Rebalanced } from './ownership';
import { storeRecorder, type ProgressRecorder } from './progress-recorder';
import { schedulerMetrics } from './scheduler-metrics';
import { createStallRescue } from './stall-rescue';
import { TaskTable } from './task-table';
import { createProgressCurve } from './progress-curve';
import { createUnitDriver } from './unit-driver';
import { createCanaryGate } from './canary-gate';

export type { Rebalanced } from './ownership';

export interface SchedulerDeps {
  config: HeraldConfig;
  store: TaskStore;
  /** task.submitted, task.command, preprocess.result, unit.progress. */
  inbox: PullChannel;
  /**
   * Optional second inbox for task.submitted, task.command and
   * preprocess.result (from interfaces and dispatchers), so they are not
   * queued behind the executors' unit.progress reports in `inbox`: a
   * real-time task is admitted, and a pause or cancel applied, after at most
   * the report in hand (docs/scheduling.md).
   */
  controlInbox?: PullChannel;
  /** preprocess.request, unit.run, task.halt. */
  toDispatcher: PushChannel;
  /**
   * The allocation ring of WORKING schedulers (APTA). This scheduler takes a
   * task only when the ring names it the owner. Default: a ring of this
   * scheduler alone, which owns everything.
   */
  ring?: () => HashRing;
  /**
   * Whether this scheduler may claim tasks it does not hold now (the sweep,
   * `rebalance`): true only while its membership is current (APTA WORKING).
   * A scheduler cut off from the others keeps its last ring, and must not
   * take back from the store a task the others have claimed meanwhile.
   * Default: always.
   */
  mayAdopt?: () => boolean;
  /** Where confirmed batches are recorded. Default: the task store (storeRecorder). */
  progress?: ProgressRecorder;
  /**
   * How often the safety sweep runs (a `rebalance` on a timer): it adopts the
   * live tasks the ring gives this scheduler that it does not own, e.g. a task
   * whose task.submitted went to a process that was not its owner at that
   * moment. Each sweep lists every live task in the store, so keep it well
   * above `tickMs`. Default: 10 x `config.scheduler.tickMs`.
   */
  sweepMs?: number;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

export interface Scheduler {
  readonly done: Promise<void>;
  /** Tasks holding an executor slot, waiting for one, and waiting for their send time. */
  stats(): { active: number; queued: number; scheduled: number; owned: number };
  /**
   * Follows the ring (`deps.ring()`) as it is now; call it on every ring change.
   * Releases each owned task the ring gives another member: forgotten at once
   * (queue, slot, units), nothing more sent or written for it, because the new
   * owner's claim fences this scheduler out. Adopts each live task in the store
   * the ring gives this scheduler and it does not own: claimed (epoch + 1,
   * fencing the previous owner) and re-entered as at start, so a SENDING task
   * resumes its units from their checkpoints. A ring without members (this
   * process is not WORKING) changes nothing: it adopts nothing and keeps what
   * it has. Runs in the scheduler's serial queue. Never rejects: a store
   * failure is logged and the next sweep adopts what this call missed.
   */
  rebalance(): Promise<Rebalanced>;
  stop(): Promise<void>;
}

/**
 * The scheduler tier: it owns the tasks the ring gives it (APTA; alone, it owns
 * everything), drives their state machine in the store, keeps the ready queue
 * by schedule score, and admits tasks only while executor slots are free,
 * preempting a normal task at its checkpoints when a real-time task needs a
 * slot (docs/scheduling.md). It follows a changing ring through `rebalance`
 * and a periodic sweep.
 *
 * Every store write carries the epoch this scheduler got when it claimed the
 * task; a FENCED answer means a newer owner exists, and the task is dropped
 * from this scheduler at once.
 *
 * This function only assembles the parts (docs/architecture.md, "Inside the
 * scheduler"): the task table, admission, the unit driver, halts, ownership,
 * the stall rescue and the job loop, then feeds the loop from the inboxes and
 * two timers.
 */
export async function startScheduler(deps: SchedulerDeps): Promise<Scheduler> {
  const { config } = deps;
  const me = config.scheduler.id;
  const soloRing = new HashRing([me]);
  const ring = deps.ring ?? (() => soloRing);
  const mayAdopt = deps.mayAdopt ?? (() => true);
  const sweepMs = deps.sweepMs ?? 10 * config.scheduler.tickMs;
  if (!Number.isInteger(sweepMs) || sweepMs < 1)
    throw new ConfigError('scheduler.sweepMs', `must be a positive integer of milliseconds (got ${String(sweepMs)})`);

  const meter = deps.meter ?? noopMeter;
  const logger = deps.logger ?? noopLogger;
  const tasks = new TaskTable(config.scheduler.unitStallMs);
  const metrics = schedulerMetrics(meter);
  const ctx = schedulerContext({
    config,
    me,
    store: deps.store,
    toDispatcher: deps.toDispatcher,
    recorder: deps.progress ?? storeRecorder(deps.store),
    clock: deps.clock ?? systemClock,
    logger,
    meter,
    metrics,
    tasks,
  });
  const loop = new JobLoop(tasks, metrics, logger);
  // The parts call each other only through these arrows, so none imports another.
  const curve = createProgressCurve(ctx);
  const driver = createUnitDriver(ctx, {
    sample: (taskId, final) => curve.sample(taskId, final),
    fail: (task, error) => halts.halt(task, 'fail', error),
    mayRun: (task, unit) => canary.mayRun(task, unit),
  });
  const canary = createCanaryGate(ctx, {
    runPending: async (task) =>
      driver.runUnits(task, tasks.get(task.id)?.units ?? (await ctx.store.listUnits(task.id))),
    pause: (task, error) => halts.halt(task, 'pause', error),
  });
  const admission = createAdmission(ctx, {
    noteWaiting: () => curve.noteWaiting(),
    requestPreprocess: (task) => driver.requestPreprocess(task),
    runUnits: (task, units) => driver.runUnits(task, units),
    stopSending: (task, event) => halts.stopSending(task, event),
    claimAgain: (task) => ownership.claimAgain(task),
  });
  const ownership = createOwnership(ctx, {
    ring,
    mayAdopt,
    enter: (task) => admission.enter(task),
    pump: () => admission.pump(),
    safely: (taskId, job, what) => loop.safely(taskId, job, what),
  });
  const halts = createHalts(ctx, {
    ensureOwned: (taskId) => ownership.ensureOwned(taskId),
    resume: (task) => admission.resume(task),
  });
  const stallRescue = createStallRescue(ctx, {
    requestPreprocess: (task) => driver.requestPreprocess(task),
    sendRun: (task, unit) => driver.sendRun(task, unit),
  });

  async function tick(): Promise<void> {
    const now = ctx.clock.now();
    for (const { task } of tasks.all()) {
      if (!(await halts.expireIfDue(task, now))) await admission.wakeIfDue(task, now);
      await driver.releaseDue(task.id);
    }
    await canary.checkDue(now);
    await stallRescue.rerunStalled(now);
    admission.rekey();
  }

  async function handle(message: Message): Promise<void> {
    switch (message.kind) {
      case 'task.submitted':
        await ownership.ensureOwned(message.taskId);
        break;
      case 'task.command':
        await halts.onCommand(message);
        break;
      case 'preprocess.result':
        await driver.onPreprocessed(message);
        break;
      case 'unit.progress':
        await driver.onProgress(message);
        break;
      case 'unit.replan':
        await driver.onReplan(message);
        break;
      default:
        logger.warn('scheduler ignores a message not meant for it', { kind: message.kind });
    }
    await admission.pump();
  }

  let stopped = false;
  // Recovery: take every live task the ring gives us and re-enter its state. A store that
  // cannot list its tasks fails the start, as it always did.
  await loop.serial.run(() => ownership.recover());

  const timer = setInterval(
    () =>
      void loop.run(undefined, async () => {
        await tick();
        await admission.pump();
      }),
    config.scheduler.tickMs,
  );
  timer.unref();

  // The safety sweep: one pass at a time, never queued behind another.
  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping || stopped) return;
    sweeping = true;
    void loop.serial.run(() => ownership.followRing('sweep')).finally(() => (sweeping = false));
  }, sweepMs);
  sweeper.unref();

  // Each inbox feeds the serial queue one message at a time (awaited, so a slow store slows the
  // inbox and ZeroMQ's high-water mark pushes back on senders); with two inboxes, a control
  // message waits behind at most the one report being handled, not behind a queue of them.
  const consume = async (inbox: PullChannel) => {
    for await (const message of inbox.messages()) {
      const taskId = 'taskId' in message ? message.taskId : undefined;
      await loop.run(taskId, () => handle(message), message.kind);
    }
  };
  const inboxes = [deps.inbox, ...(deps.controlInbox ? [deps.controlInbox] : [])];
  const done = (async () => {
    // The scheduler ends when its main inbox closes; a control inbox closes with it.
    await Promise.all([
      consume(deps.inbox).finally(() => deps.controlInbox?.close()),
      ...(deps.controlInbox ? [consume(deps.controlInbox)] : []),
    ]);
    stopped = true;
    clearInterval(timer);
    clearInterval(sweeper);
    await loop.serial.idle();
  })();

  return {
    done,
    stats: () => ({ active: tasks.active, queued: tasks.queued, scheduled: tasks.scheduled, owned: tasks.size }),
    rebalance: () =>
      stopped ? Promise.resolve({ adopted: 0, released: 0 }) : loop.serial.run(() => ownership.followRing('rebalance')),
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(sweeper);
      for (const inbox of inboxes) inbox.close();
      await done;
    },
  };
}
