import {
  FencedError,
  HashRing,
  PriorityQueue,
  isHeraldError,
  noopLogger,
  noopMeter,
  scheduleScore,
  systemClock,
  taskMachine,
  unitMachine,
  type Clock,
  type ExecutionUnit,
  type HeraldConfig,
  type Logger,
  type Meter,
  type Task,
  type TaskEvent,
  type TaskPatch,
  type TaskStore,
} from '@herald/core';
import type { Message, PreprocessResult, PullChannel, PushChannel, TaskCommand, UnitProgressMessage } from '@herald/transport';
import { SerialQueue } from './serial';
import { storeRecorder, withProgress, type ProgressRecorder } from './progress-recorder';

export interface SchedulerDeps {
  config: HeraldConfig;
  store: TaskStore;
  /** task.submitted, task.command, preprocess.result, unit.progress. */
  inbox: PullChannel;
  /** preprocess.request, unit.run, task.halt. */
  toDispatcher: PushChannel;
  /**
   * The allocation ring of WORKING schedulers (APTA). This scheduler takes a
   * task only when the ring names it the owner. Default: a ring of this
   * scheduler alone, which owns everything.
   */
  ring?: () => HashRing;
  /** Where confirmed batches are recorded. Default: the task store (storeRecorder). */
  progress?: ProgressRecorder;
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

export interface Scheduler {
  readonly done: Promise<void>;
  /** Tasks holding an executor slot, waiting for one, and waiting for their send time. */
  stats(): { active: number; queued: number; scheduled: number; owned: number };
  stop(): Promise<void>;
}

/** How often a sending task's delivered/offline totals are written back to the task row. */
const REPORT_EVERY_MS = 250;

/**
 * The scheduler tier (one member owning everything until APTA lands): it owns
 * tasks, drives their state machine in the store, keeps the ready queue by
 * schedule score, and admits tasks only while executor slots are free.
 *
 * Every store write carries the epoch this scheduler got when it claimed the
 * task; a FENCED answer means a newer owner exists, and the task is dropped
 * from this scheduler at once.
 */
export async function startScheduler(deps: SchedulerDeps): Promise<Scheduler> {
  const { config, store } = deps;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? noopLogger;
  const meter = deps.meter ?? noopMeter;
  const transitions = meter.counter('herald_task_transitions_total', 'Task state transitions', ['event']);
  const me = config.scheduler.id;
  const soloRing = new HashRing([me]);
  const ring = deps.ring ?? (() => soloRing);
  const mine = (taskId: number) => ring().ownerOf(taskId) === me;
  const recorder = deps.progress ?? storeRecorder(store);

  const owned = new Map<number, Task>();
  const units = new Map<number, ExecutionUnit[]>();
  const scheduled = new Set<number>();
  const queue = new PriorityQueue<number>();
  const active = new Set<number>();
  const lastReportAt = new Map<number, number>();
  const serial = new SerialQueue();

  const fenceOf = (task: Task) => ({ epoch: task.epoch });
  const scoreOf = (task: Task) =>
    scheduleScore({ priority: task.priority, readySince: Math.max(task.sendAt, task.createdAt), recipients: task.listCount, expiresAt: task.expiresAt }, clock.now());

  function forget(taskId: number): void {
    owned.delete(taskId);
    units.delete(taskId);
    scheduled.delete(taskId);
    active.delete(taskId);
    lastReportAt.delete(taskId);
    queue.remove((id) => id === taskId);
  }

  async function transition(task: Task, event: TaskEvent, patch: TaskPatch = {}): Promise<Task> {
    const next = await store.transitionTask(task.id, fenceOf(task), event, patch, clock.now());
    owned.set(next.id, next);
    transitions.inc({ event });
    logger.debug('task transition', { taskId: task.id, from: task.state, event, to: next.state });
    return next;
  }

  async function ensureOwned(taskId: number): Promise<Task | undefined> {
    const held = owned.get(taskId);
    if (held) return held;
    if (!mine(taskId)) {
      logger.debug('task belongs to another scheduler on the ring', { taskId, owner: ring().ownerOf(taskId) });
      return undefined;
    }
    const stored = await store.getTask(taskId);
    if (stored === undefined) {
      logger.warn('message names an unknown task', { taskId });
      return undefined;
    }
    if (taskMachine.isTerminal(stored.state)) return undefined;
    const claimed = await store.claimTask(taskId, me, clock.now());
    owned.set(taskId, claimed);
    await enter(claimed);
    return owned.get(taskId);
  }

  /** Re-enters the work that belongs to a task's stored state (new task or recovery). */
  async function enter(task: Task): Promise<void> {
    switch (task.state) {
      case 'CREATED':
        if (task.sendAt > clock.now()) {
          await transition(task, 'schedule');
          scheduled.add(task.id);
        } else enqueue(await transition(task, 'enqueue'));
        return;
      case 'SCHEDULED':
        scheduled.add(task.id);
        return;
      case 'QUEUED':
      case 'PREEMPTED':
        enqueue(task);
        return;
      case 'PREPROCESSING':
      case 'DISPATCHING':
      case 'SENDING':
        enqueue(await transition(task, 'requeue'));
        return;
      default:
        return; // PAUSED waits for resume; terminal states need nothing.
    }
  }

  function enqueue(task: Task): void {
    queue.remove((id) => id === task.id);
    queue.push(task.id, scoreOf(task));
  }

  async function pump(): Promise<void> {
    while (active.size < config.scheduler.slots && queue.size > 0) {
      const task = owned.get(queue.pop()!);
      if (task === undefined || (task.state !== 'QUEUED' && task.state !== 'PREEMPTED')) continue;
      active.add(task.id);
      await admit(task);
    }
  }

  async function admit(task: Task): Promise<void> {
    // Units exist once pre-processing was done and planned: resume from their checkpoints.
    const existing = task.filteredListId === null ? [] : await store.listUnits(task.id);
    if (existing.length > 0) {
      const sending = await transition(task, 'resumeSending');
      await runUnits(sending, existing);
      return;
    }
    const preprocessing = await transition(task, 'admit');
    await deps.toDispatcher.send({
      kind: 'preprocess.request',
      taskId: task.id,
      epoch: preprocessing.epoch,
      listId: task.listId,
      accountId: task.accountId,
      contentCrc: task.contentCrc,
    });
  }

  async function onPreprocessed(result: PreprocessResult): Promise<void> {
    const task = owned.get(result.taskId);
    if (task === undefined || task.state !== 'PREPROCESSING' || result.epoch !== task.epoch) return; // stale or paused meanwhile
    if (!result.ok) {
      await transition(task, 'fail', { error: { code: result.errorCode, message: result.message } });
      release(task.id);
      return;
    }
    const dispatching = await transition(task, 'preprocessed', {
      filteredListId: result.filteredListId,
      report: { total: result.total, kept: result.kept, removed: result.removed, units: result.units.length },
    });
    const created = await store.putUnits(task.id, fenceOf(dispatching), result.units.map((u, unitNo) => ({ unitNo, ...u })), clock.now());
    const sending = await transition(dispatching, 'dispatched');
    await runUnits(sending, created);
  }

  /** Starts (or restarts from their checkpoints) every unfinished unit of a sending task. */
  async function runUnits(task: Task, list: ExecutionUnit[]): Promise<void> {
    const fence = fenceOf(task);
    const current: ExecutionUnit[] = [];
    for (let unit of list) {
      const known = await recorder.latest(task, unit);
      if (unit.state === 'ASSIGNED' || unit.state === 'RUNNING') unit = await store.transitionUnit(task.id, unit.unitNo, fence, 'lose', clock.now());
      if (unit.state === 'FAILED') unit = await store.transitionUnit(task.id, unit.unitNo, fence, 'retry', clock.now());
      if (unitMachine.can(unit.state, 'assign')) {
        unit = withProgress(await store.transitionUnit(task.id, unit.unitNo, fence, 'assign', clock.now(), unit.executorId), known);
        if (unit.checkpoint >= unit.end) unit = await finishUnit(task, unit);
        else
          await deps.toDispatcher.send({
            kind: 'unit.run',
            taskId: task.id,
            epoch: task.epoch,
            unitNo: unit.unitNo,
            filteredListId: task.filteredListId!,
            start: unit.start,
            end: unit.end,
            from: unit.checkpoint,
            executorId: unit.executorId,
          });
      }
      current.push(unit);
    }
    units.set(task.id, current);
    await maybeComplete(task.id);
  }

  async function onProgress(progress: UnitProgressMessage): Promise<void> {
    const task = owned.get(progress.taskId);
    if (task === undefined) return;
    const fence = fenceOf(task);
    const list = units.get(progress.taskId);
    const current = list?.find((u) => u.unitNo === progress.unitNo) ?? (await loadUnit(task, progress.unitNo));
    if (current === undefined) return;
    let unit = await recorder.record(task, current, progress, clock.now());
    if (list === undefined) {
      // Paused or stopped meanwhile: the batch was delivered, so keep its checkpoint; a resume must not send it again.
      await recorder.settle(task, unit, clock.now());
      return;
    }
    if (unit.state === 'ASSIGNED') unit = withProgress(await store.transitionUnit(task.id, unit.unitNo, fence, 'start', clock.now()), unit);
    if (unit.checkpoint >= unit.end && unitMachine.can(unit.state, 'finish')) unit = await finishUnit(task, unit);
    list[list.findIndex((u) => u.unitNo === unit.unitNo)] = unit;
    if (!(await maybeComplete(task.id))) await writeReport(task.id, false);
  }

  async function loadUnit(task: Task, unitNo: number): Promise<ExecutionUnit | undefined> {
    const stored = (await store.listUnits(task.id)).find((u) => u.unitNo === unitNo);
    return stored === undefined ? undefined : recorder.latest(task, stored);
  }

  /** Settles the unit's progress into the store, then marks it DONE. */
  async function finishUnit(task: Task, unit: ExecutionUnit): Promise<ExecutionUnit> {
    await recorder.settle(task, unit, clock.now());
    return withProgress(await store.transitionUnit(task.id, unit.unitNo, fenceOf(task), 'finish', clock.now()), unit);
  }

  function totals(taskId: number) {
    const list = units.get(taskId) ?? [];
    let delivered = 0;
    let offline = 0;
    let unitsDone = 0;
    for (const u of list) {
      delivered += u.delivered;
      offline += u.offline;
      if (u.state === 'DONE') unitsDone++;
    }
    return { delivered, offline, unitsDone };
  }

  async function writeReport(taskId: number, force: boolean): Promise<void> {
    const task = owned.get(taskId);
    const now = clock.now();
    if (task === undefined || (!force && now - (lastReportAt.get(taskId) ?? 0) < REPORT_EVERY_MS)) return;
    lastReportAt.set(taskId, now);
    owned.set(taskId, await store.updateTask(taskId, fenceOf(task), { report: totals(taskId) }, now));
  }

  async function maybeComplete(taskId: number): Promise<boolean> {
    const task = owned.get(taskId);
    const list = units.get(taskId);
    if (task === undefined || list === undefined || task.state !== 'SENDING') return false;
    if (!list.every((u) => u.state === 'DONE')) return false;
    await transition(task, 'complete', { report: totals(taskId) });
    logger.info('task completed', { taskId, ...totals(taskId) });
    release(taskId);
    return true;
  }

  /** Frees the task's slot; the task stays owned (it may be resumed). */
  function release(taskId: number): void {
    active.delete(taskId);
    units.delete(taskId);
    const task = owned.get(taskId);
    if (task && taskMachine.isTerminal(task.state)) forget(taskId);
  }

  async function halt(task: Task, event: 'pause' | 'cancel' | 'expire' | 'preempt'): Promise<void> {
    const list = units.get(task.id) ?? (task.filteredListId !== null ? await store.listUnits(task.id) : []);
    await deps.toDispatcher.send({ kind: 'task.halt', taskId: task.id, epoch: task.epoch });
    const stopped = await transition(task, event, { report: totals(task.id) });
    const unitEvent = event === 'cancel' || event === 'expire' ? 'cancel' : 'stop';
    for (const unit of list) {
      await recorder.settle(stopped, unit, clock.now());
      if (unitMachine.can(unit.state, unitEvent)) await store.transitionUnit(task.id, unit.unitNo, fenceOf(stopped), unitEvent, clock.now());
    }
    scheduled.delete(task.id);
    queue.remove((id) => id === task.id);
    release(task.id);
  }

  async function onCommand(command: TaskCommand): Promise<void> {
    const task = await ensureOwned(command.taskId);
    if (task === undefined) return;
    const event = command.command;
    if (!taskMachine.can(task.state, event)) {
      logger.warn('command not allowed in the task state', { taskId: task.id, command: event, state: task.state });
      return;
    }
    if (event !== 'resume') await halt(task, event);
    else if (task.sendAt > clock.now()) {
      // Resumed before its send time: back on schedule, not straight into the queue.
      await transition(task, 'schedule');
      scheduled.add(task.id);
    } else enqueue(await transition(task, 'resume'));
  }

  async function tick(): Promise<void> {
    const now = clock.now();
    for (const task of [...owned.values()]) {
      if (task.expiresAt <= now && taskMachine.can(task.state, 'expire')) await halt(task, 'expire');
      else if (task.state === 'SCHEDULED' && task.sendAt <= now) {
        scheduled.delete(task.id);
        enqueue(await transition(task, 'enqueue'));
      }
    }
    queue.rekey((id) => (owned.has(id) ? scoreOf(owned.get(id)!) : 0));
  }

  async function handle(message: Message): Promise<void> {
    switch (message.kind) {
      case 'task.submitted':
        await ensureOwned(message.taskId);
        break;
      case 'task.command':
        await onCommand(message);
        break;
      case 'preprocess.result':
        await onPreprocessed(message);
        break;
      case 'unit.progress':
        await onProgress(message);
        break;
      default:
        logger.warn('scheduler ignores a message not meant for it', { kind: message.kind });
    }
    await pump();
  }

  /** Runs a job; a FENCED answer drops the task, any other error is logged and the loop goes on. */
  async function safely(taskId: number | undefined, job: () => Promise<void>): Promise<void> {
    try {
      await job();
    } catch (error) {
      if (error instanceof FencedError && taskId !== undefined) {
        logger.warn('lost ownership of a task; dropping it', { taskId });
        forget(taskId);
      } else logger.error('scheduler job failed', { taskId, error: String(error), code: isHeraldError(error) ? error.code : undefined });
    }
  }
  const guarded = (taskId: number | undefined, job: () => Promise<void>) => serial.run(() => safely(taskId, job));

  // Recovery: take every live task and re-enter its state.
  await serial.run(async () => {
    for (const stored of await store.listLiveTasks()) {
      if (!mine(stored.id)) continue;
      await safely(stored.id, async () => {
        const claimed = await store.claimTask(stored.id, me, clock.now());
        owned.set(claimed.id, claimed);
        await enter(claimed);
      });
    }
    await safely(undefined, pump);
  });

  const timer = setInterval(() => void guarded(undefined, async () => {
    await tick();
    await pump();
  }), config.scheduler.tickMs);
  timer.unref();

  const done = (async () => {
    for await (const message of deps.inbox.messages()) {
      const taskId = 'taskId' in message ? message.taskId : undefined;
      // Awaited, so a slow store slows the inbox and ZeroMQ's high-water mark pushes back on senders.
      await guarded(taskId, () => handle(message));
    }
    clearInterval(timer);
    await serial.idle();
  })();

  return {
    done,
    stats: () => ({ active: active.size, queued: queue.size, scheduled: scheduled.size, owned: owned.size }),
    async stop() {
      clearInterval(timer);
      deps.inbox.close();
      await done;
    },
  };
}
