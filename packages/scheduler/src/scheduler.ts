import { ConfigError, FencedError, isHeraldError } from '@herald/core';
import { HashRing } from '@herald/core/ring';
import { PriorityQueue, scheduleScore } from '@herald/core/schedule';
import {
  noopLogger,
  noopMeter,
  systemClock,
  type Clock,
  type Logger,
  type Meter,
  type TaskPatch,
  type TaskStore,
} from '@herald/core/ports';
import { taskMachine, unitMachine, type ExecutionUnit, type Task, type TaskEvent } from '@herald/core/task';
import type { HeraldConfig } from '@herald/core/config';
import type { Message, PreprocessResult, PullChannel, PushChannel, TaskCommand, UnitProgressMessage } from '@herald/transport';
import { schedulerMetrics } from './scheduler-metrics';
import { SerialQueue } from './serial';
import { StallWatch } from './stall-watch';
import { storeRecorder, withProgress, type ProgressRecorder } from './progress-recorder';

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

/** What one `rebalance` moved. */
export interface Rebalanced {
  /** Live tasks claimed (epoch + 1) and re-entered. */
  adopted: number;
  /** Owned tasks forgotten because the ring gives them to another member. */
  released: number;
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

/** How often a sending task's delivered/offline totals are written back to the task row. */
const REPORT_EVERY_MS = 250;
/** How often the scheduler's gauges are set, at most: each counts every unit it holds. */
const STATS_EVERY_MS = 250;
/** A job slower than this is logged: every message queued behind it waited as long. */
const SLOW_JOB_MS = 100;

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
  const mayAdopt = deps.mayAdopt ?? (() => true);
  const mine = (taskId: number) => ring().ownerOf(taskId) === me;
  const recorder = deps.progress ?? storeRecorder(store);
  const sweepMs = deps.sweepMs ?? 10 * config.scheduler.tickMs;
  if (!Number.isInteger(sweepMs) || sweepMs < 1) throw new ConfigError('scheduler.sweepMs', `must be a positive integer of milliseconds (got ${String(sweepMs)})`);
  const adoptedTotal = meter.counter('herald_scheduler_adopted_tasks_total', 'Live tasks claimed from the store at start, on a ring change or by the sweep');
  const releasedTotal = meter.counter('herald_scheduler_released_tasks_total', 'Owned tasks forgotten because the ring gives them to another scheduler');
  const preemptions = meter.counter('herald_scheduler_preemptions_total', 'Normal tasks stopped at their checkpoints to free an executor slot for a real-time task');

  const owned = new Map<number, Task>();
  const units = new Map<number, ExecutionUnit[]>();
  const scheduled = new Set<number>();
  const queue = new PriorityQueue<number>();
  const active = new Set<number>();
  const lastReportAt = new Map<number, number>();
  /**
   * Per task, the epoch under which this scheduler halted it while its units
   * were streaming, with a halt that closes the epoch: executors then drop the
   * task's batches still on their way under it, so the task's units must never
   * run under it again. Resuming it claims the task first (epoch + 1).
   */
  const closedEpochs = new Map<number, number>();
  const serial = new SerialQueue();
  const stalls = new StallWatch(config.scheduler.unitStallMs);
  /**
   * Pre-processing has no progress reports: a result lost with a dispatcher
   * that died mid-way (or with its queue) would leave the task PREPROCESSING,
   * holding its slot, for good. So a task still pre-processing after four
   * unit-stall periods is asked for again (a long list's filter pass can take
   * longer than one unit's stall period). Asking again is safe: a dispatcher
   * pre-processes a task once and answers a repeated request with the
   * recorded result, never writing a second filtered list under units that
   * may already stream from the first (dispatcher/preprocess-outcome.ts), and
   * a result of an old epoch or a finished step is ignored here.
   */
  const preprocessStalls = new StallWatch(config.scheduler.unitStallMs * 4);
  const preprocessRetries = meter.counter('herald_scheduler_preprocess_retries_total', 'Pre-processing requests sent again after no result for 4 x scheduler.unitStallMs');
  const stalledUnits = meter.counter('herald_scheduler_stalled_units_total', 'Units run again from their checkpoint after no progress for scheduler.unitStallMs');
  const metrics = schedulerMetrics(meter);
  /** Tasks whose first confirmed batch was seen (or that had one when this scheduler got them). */
  const reachedTasks = new Set<number>();
  let statsAt = -Infinity;

  const fenceOf = (task: Task) => ({ epoch: task.epoch });
  const scoreOf = (task: Task) =>
    scheduleScore({ priority: task.priority, readySince: Math.max(task.sendAt, task.createdAt), recipients: task.listCount, expiresAt: task.expiresAt }, clock.now());

  function forget(taskId: number): void {
    owned.delete(taskId);
    units.delete(taskId);
    stalls.forget(taskId);
    preprocessStalls.forget(taskId);
    scheduled.delete(taskId);
    active.delete(taskId);
    lastReportAt.delete(taskId);
    closedEpochs.delete(taskId);
    reachedTasks.delete(taskId);
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

  /** The best queued task that can still be admitted; stale queue entries met on the way are dropped. */
  function bestReady(): Task | undefined {
    while (queue.size > 0) {
      const task = owned.get(queue.peek()!);
      if (task !== undefined && (task.state === 'QUEUED' || task.state === 'PREEMPTED')) return task;
      queue.pop();
    }
    return undefined;
  }

  /**
   * Admits the best queued tasks while slots are free. When none is free and
   * the best queued task is real-time, one normal task is preempted to make
   * room for it (see `preemptFor`); a normal task never preempts anything.
   */
  async function pump(): Promise<void> {
    /** What is left of each preemption of this pass: the victim's units to stop, once the real-time task is admitted. */
    const stopping: (() => Promise<void>)[] = [];
    try {
      for (let task = bestReady(); task !== undefined; task = bestReady()) {
        if (active.size >= config.scheduler.slots) {
          const rest = await preemptFor(task);
          if (rest === undefined) return;
          stopping.push(rest);
          continue; // the freed slot goes to the best queued task: this one
        }
        queue.pop();
        active.add(task.id);
        if (!(await admitted(task))) return;
      }
    } finally {
      for (const rest of stopping) await rest();
    }
  }

  /**
   * Frees one slot for a real-time task by preempting the lowest-scored normal
   * task that is SENDING: its streams stop and its units stop at their
   * checkpoints (the batches already at an executor are still confirmed and
   * checkpointed), and it goes back to the queue as PREEMPTED, to resume from
   * those checkpoints through ordinary admission. Returns undefined,
   * preempting nothing, for a normal task, or when no active task is a SENDING
   * normal one (real-time tasks are never preempted; a task still
   * pre-processing or dispatching has no checkpoint to stop at, so the
   * real-time task waits for it to reach SENDING, which runs the pump again).
   *
   * Otherwise the victim's streams are stopped (task.halt, first of all), it is
   * PREEMPTED and its slot free, and what returns is the rest: its units
   * stopped at their checkpoints in the store (two writes per unit, more with
   * the coordinator recorder), which `pump` runs once it has admitted the
   * real-time task, so that they overlap its pre-processing instead of
   * delaying it. Nothing else runs in between (one pump, one serial job), and
   * the counter and the log come after them, when the halt is complete.
   *
   * No thrash: each preemption is paired with the admission of the real-time
   * task it was made for, which takes the freed slot at once, so there are
   * never more preemptions than real-time admissions; the preempted task keeps
   * its ready time, hence its aging, and outranks fresher normal tasks when it
   * is queued again.
   */
  async function preemptFor(task: Task): Promise<(() => Promise<void>) | undefined> {
    if (task.priority !== 'realtime') return undefined;
    let victim: Task | undefined;
    let lowest = Infinity;
    for (const id of active) {
      const candidate = owned.get(id);
      if (candidate === undefined || candidate.priority !== 'normal' || candidate.state !== 'SENDING') continue;
      const score = scoreOf(candidate);
      if (score < lowest) [victim, lowest] = [candidate, score];
    }
    if (victim === undefined) return undefined;
    const progress = totals(victim.id);
    const stopUnits = await stopSending(victim, 'preempt');
    const preempted = owned.get(victim.id)!;
    enqueue(preempted);
    return async () => {
      // Resumed (or dropped) in this same pass, its units belong to that run now: leave them be.
      const now = owned.get(victim.id);
      if (now?.state === 'PREEMPTED' && now.epoch === preempted.epoch) await stopUnits();
      preemptions.inc();
      logger.info('task preempted for a real-time task', { taskId: victim.id, for: task.id, score: Math.round(lowest), delivered: progress.delivered, offline: progress.offline });
    };
  }

  /**
   * Admits a task that has just taken a slot; false when that failed and the
   * pump should stop for now. A failure must not keep the slot: the task
   * would hold it while QUEUED, and with every slot held so, nothing would be
   * admitted again (a chaos run left three tasks QUEUED for good). So a task
   * another owner took (FENCED) is dropped; one the store could not move (an
   * outage past the retries) gives its slot back and waits in the queue for a
   * later pump (every tick runs one). A task that got past QUEUED before the
   * failure keeps its slot: it is live, and the stall watches pick it up.
   */
  async function admitted(task: Task): Promise<boolean> {
    try {
      await admit(task);
      return true;
    } catch (error) {
      const now = owned.get(task.id);
      if (error instanceof FencedError) {
        logger.warn('lost ownership of a task while admitting it; dropping it', { taskId: task.id });
        forget(task.id);
        return true;
      }
      if (now !== undefined && (now.state === 'QUEUED' || now.state === 'PREEMPTED')) {
        active.delete(task.id);
        enqueue(now);
      }
      metrics.failed(error);
      logger.error('admitting a task failed; it waits for the next pump', { taskId: task.id, state: now?.state, error: String(error), code: isHeraldError(error) ? error.code : undefined });
      return false;
    }
  }

  async function admit(task: Task): Promise<void> {
    // Units exist once pre-processing was done and planned: resume from their checkpoints.
    const existing = task.filteredListId === null ? [] : await store.listUnits(task.id);
    if (existing.length > 0) {
      let sending = await transition(task, 'resumeSending');
      if (closedEpochs.get(task.id) === sending.epoch) sending = await claimAgain(sending);
      await runUnits(sending, existing);
      return;
    }
    await requestPreprocess(await transition(task, 'admit'));
  }

  function requestPreprocess(task: Task): Promise<void> {
    return deps.toDispatcher.send({
      kind: 'preprocess.request',
      taskId: task.id,
      epoch: task.epoch,
      listId: task.listId,
      accountId: task.accountId,
      contentCrc: task.contentCrc,
      // 0: none asked; the dispatcher then plans by a speed from global load.
      speed: task.speed ?? 0,
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

  /**
   * Takes a new epoch for a task this scheduler halted with a closing halt,
   * before its units run again: executors drop every batch of the task at or
   * below the closed epoch (docs/scheduling.md, "The bound"), so a resume under
   * it would be dropped too. Called right after a fenced write under the old
   * epoch succeeded, so this scheduler still owned the task a moment ago; the
   * claim is not fenced itself (the store has no such write), which leaves a
   * window of one store round trip in which a new owner's claim, if one came,
   * would be taken back, as `ensureOwned` can too; that owner is fenced out at
   * its next write and drops the task, and the ring's owner adopts it again.
   */
  async function claimAgain(task: Task): Promise<Task> {
    const claimed = await store.claimTask(task.id, me, clock.now());
    owned.set(claimed.id, claimed);
    closedEpochs.delete(task.id);
    logger.debug('task claimed again to resume under a new epoch', { taskId: task.id, closed: task.epoch, epoch: claimed.epoch });
    return claimed;
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
        else await sendRun(task, unit);
      }
      current.push(unit);
    }
    units.set(task.id, current);
    await maybeComplete(task.id);
  }

  /** Asks a dispatcher to stream a unit from its checkpoint to its end. */
  function sendRun(task: Task, unit: ExecutionUnit): Promise<void> {
    return deps.toDispatcher.send({
      kind: 'unit.run',
      taskId: task.id,
      epoch: task.epoch,
      unitNo: unit.unitNo,
      filteredListId: task.filteredListId!,
      start: unit.start,
      end: unit.end,
      from: unit.checkpoint,
      executorId: unit.executorId,
      realtime: task.priority === 'realtime',
    });
  }

  /**
   * Runs again, from its checkpoint, every unit of a sending task whose
   * checkpoint has not moved for `unitStallMs` (stall-watch.ts says why that is
   * safe): its dispatcher or executor died or restarted, or the unit.run was
   * lost with a process's queue.
   */
  async function rerunStalled(now: number): Promise<void> {
    for (const task of [...owned.values()]) {
      if (task.state !== 'PREPROCESSING' || !preprocessStalls.isStalled(task.id, -1, task.epoch, now)) continue;
      const stored = await store.getTask(task.id);
      if (stored === undefined || stored.epoch !== task.epoch) {
        logger.warn('lost ownership of a task; dropping it', { taskId: task.id, epoch: task.epoch, current: stored?.epoch, owner: stored?.owner });
        forget(task.id);
        continue;
      }
      preprocessRetries.inc();
      logger.warn('pre-processing gave no result; asking again', { taskId: task.id, epoch: task.epoch, stallMs: config.scheduler.unitStallMs * 4 });
      await requestPreprocess(task);
    }
    for (const [taskId, list] of units) {
      const task = owned.get(taskId);
      if (task === undefined || task.state !== 'SENDING') continue;
      for (const unit of list) {
        if (unit.state !== 'ASSIGNED' && unit.state !== 'RUNNING') continue;
        if (!stalls.isStalled(taskId, unit.unitNo, unit.checkpoint, now)) continue;
        // No progress may mean another scheduler took the task (this one was cut off meanwhile):
        // ask the store before sending anything more under this epoch.
        const stored = await store.getTask(taskId);
        if (stored === undefined || stored.epoch !== task.epoch) {
          logger.warn('lost ownership of a task; dropping it', { taskId, epoch: task.epoch, current: stored?.epoch, owner: stored?.owner });
          forget(taskId);
          break;
        }
        stalledUnits.inc();
        logger.warn('unit made no progress; running it again from its checkpoint', { taskId, unitNo: unit.unitNo, checkpoint: unit.checkpoint, executorId: unit.executorId, stallMs: config.scheduler.unitStallMs });
        await sendRun(task, unit);
      }
    }
  }

  async function onProgress(progress: UnitProgressMessage): Promise<void> {
    const task = owned.get(progress.taskId);
    if (task === undefined) return;
    const fence = fenceOf(task);
    const list = units.get(progress.taskId);
    const current = list?.find((u) => u.unitNo === progress.unitNo) ?? (await loadUnit(task, progress.unitNo));
    if (current === undefined) return;
    const before = list === undefined || reachedTasks.has(task.id) ? undefined : totals(task.id);
    let unit = await recorder.record(task, current, progress, clock.now());
    if (before !== undefined && unit.delivered + unit.offline > current.delivered + current.offline) {
      // Once per task and owner; a task taken over with progress already had its first delivery.
      reachedTasks.add(task.id);
      if (before.delivered + before.offline === 0) metrics.firstDelivery(task, clock.now());
    }
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
    const completed = await transition(task, 'complete', { report: totals(taskId) });
    metrics.completed(completed, clock.now());
    logger.info('task completed', { taskId, ...totals(taskId) });
    release(taskId);
    return true;
  }

  /** Frees the task's slot; the task stays owned (it may be resumed). */
  function release(taskId: number): void {
    active.delete(taskId);
    units.delete(taskId);
    stalls.forget(taskId);
    preprocessStalls.forget(taskId);
    const task = owned.get(taskId);
    if (task && taskMachine.isTerminal(task.state)) forget(taskId);
  }

  /**
   * Stops a task: its streams first (task.halt), then its state and its units
   * at their checkpoints. A task that was SENDING gets a halt that closes its
   * epoch, so executors drop its batches still on the way; it resumes, if
   * ever, under a new epoch (`claimAgain`).
   */
  async function halt(task: Task, event: 'pause' | 'cancel' | 'expire' | 'preempt'): Promise<void> {
    const stopUnits = await stopSending(task, event);
    await stopUnits();
  }

  /** The first part of a halt: streams stopped, state changed, slot freed. Returns the second: the units stopped at their checkpoints. */
  async function stopSending(task: Task, event: 'pause' | 'cancel' | 'expire' | 'preempt'): Promise<() => Promise<void>> {
    const list = units.get(task.id) ?? (task.filteredListId !== null ? await store.listUnits(task.id) : []);
    const closesEpoch = task.state === 'SENDING';
    if (closesEpoch) closedEpochs.set(task.id, task.epoch);
    await deps.toDispatcher.send({ kind: 'task.halt', taskId: task.id, epoch: task.epoch, ...(closesEpoch ? { closesEpoch: true as const } : {}) });
    const stopped = await transition(task, event, { report: totals(task.id) });
    scheduled.delete(task.id);
    queue.remove((id) => id === task.id);
    release(task.id);
    const unitEvent = event === 'cancel' || event === 'expire' ? 'cancel' : 'stop';
    return async () => {
      for (const unit of list) {
        await recorder.settle(stopped, unit, clock.now());
        if (unitMachine.can(unit.state, unitEvent)) await store.transitionUnit(task.id, unit.unitNo, fenceOf(stopped), unitEvent, clock.now());
      }
    };
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
    await rerunStalled(now);
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
  async function safely(taskId: number | undefined, job: () => Promise<void>, what = 'tick'): Promise<void> {
    const started = performance.now();
    try {
      await job();
      const ms = performance.now() - started;
      // Jobs run one at a time, so a slow one delays every message behind it: say so.
      if (ms > SLOW_JOB_MS) logger.warn('slow scheduler job', { what, taskId, ms: Math.round(ms) });
    } catch (error) {
      metrics.failed(error);
      if (error instanceof FencedError && taskId !== undefined) {
        logger.warn('lost ownership of a task; dropping it', { taskId });
        forget(taskId);
      } else logger.error('scheduler job failed', { taskId, error: String(error), code: isHeraldError(error) ? error.code : undefined });
    } finally {
      publishStats();
    }
  }

  /** Sets the gauges, at most every STATS_EVERY_MS (a tick comes at least every scheduler.tickMs). */
  function publishStats(): void {
    const now = performance.now();
    if (now - statsAt < STATS_EVERY_MS) return;
    statsAt = now;
    const unitsByExecutor = new Map<string, number>();
    for (const list of units.values()) {
      for (const unit of list) if (unit.state === 'ASSIGNED' || unit.state === 'RUNNING') unitsByExecutor.set(unit.executorId, (unitsByExecutor.get(unit.executorId) ?? 0) + 1);
    }
    metrics.publish({ queued: queue.size, active: active.size, scheduled: scheduled.size, owned: owned.size, pendingJobs: Math.max(0, serial.pending - 1), unitsByExecutor });
  }
  const guarded = (taskId: number | undefined, job: () => Promise<void>, what?: string) => serial.run(() => safely(taskId, job, what));

  /**
   * Forgets every owned task the ring gives another member. Nothing is sent or
   * written for it: the new owner claims it with a higher epoch, which fences
   * out any write of ours, and its unit.run supersedes our streams.
   */
  function releaseLost(current: HashRing): number {
    let released = 0;
    for (const taskId of [...owned.keys()]) {
      if (current.ownerOf(taskId) === me) continue;
      forget(taskId);
      released++;
    }
    if (released > 0) releasedTotal.inc(undefined, released);
    return released;
  }

  /**
   * Claims every live task the ring gives this scheduler that it does not own
   * yet (epoch + 1, whoever held it) and re-enters its stored state, as at
   * start: SENDING goes back through requeue and admission to resumeSending,
   * its units resuming from their checkpoints.
   */
  async function adoptMine(current: HashRing, result: Rebalanced): Promise<void> {
    for (const stored of await store.listLiveTasks()) {
      if (owned.has(stored.id) || current.ownerOf(stored.id) !== me) continue;
      await safely(
        stored.id,
        async () => {
          const claimed = await store.claimTask(stored.id, me, clock.now());
          owned.set(claimed.id, claimed);
          result.adopted++;
          adoptedTotal.inc();
          await enter(claimed);
        },
        'adopt',
      );
    }
  }

  /** One pass of following the ring; the caller runs it in the serial queue. */
  async function followRing(what: string): Promise<Rebalanced> {
    const result: Rebalanced = { adopted: 0, released: 0 };
    await safely(
      undefined,
      async () => {
        const current = ring();
        if (current.size === 0) return; // not WORKING: take nothing, keep what we have (the store's fencing protects it)
        result.released = releaseLost(current);
        if (mayAdopt()) await adoptMine(current, result);
      },
      what,
    );
    if (result.adopted > 0 || result.released > 0) logger.info('scheduler followed the ring', { what, ...result, owned: owned.size });
    await safely(undefined, pump, what);
    return result;
  }

  let stopped = false;
  // Recovery: take every live task the ring gives us and re-enter its state. A store that
  // cannot list its tasks fails the start, as it always did.
  await serial.run(async () => {
    const current = ring();
    const result: Rebalanced = { adopted: 0, released: 0 };
    if (current.size > 0) await adoptMine(current, result);
    if (result.adopted > 0) logger.info('scheduler recovered live tasks', { adopted: result.adopted });
    await safely(undefined, pump, 'recovery');
  });

  const timer = setInterval(() => void guarded(undefined, async () => {
    await tick();
    await pump();
  }), config.scheduler.tickMs);
  timer.unref();

  // The safety sweep: one pass at a time, never queued behind another.
  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping || stopped) return;
    sweeping = true;
    void serial.run(() => followRing('sweep')).finally(() => (sweeping = false));
  }, sweepMs);
  sweeper.unref();

  // Each inbox feeds the serial queue one message at a time (awaited, so a slow store slows the
  // inbox and ZeroMQ's high-water mark pushes back on senders); with two inboxes, a control
  // message waits behind at most the one report being handled, not behind a queue of them.
  const consume = async (inbox: PullChannel) => {
    for await (const message of inbox.messages()) {
      const taskId = 'taskId' in message ? message.taskId : undefined;
      await guarded(taskId, () => handle(message), message.kind);
    }
  };
  const inboxes = [deps.inbox, ...(deps.controlInbox ? [deps.controlInbox] : [])];
  const done = (async () => {
    // The scheduler ends when its main inbox closes; a control inbox closes with it.
    await Promise.all([consume(deps.inbox).finally(() => deps.controlInbox?.close()), ...(deps.controlInbox ? [consume(deps.controlInbox)] : [])]);
    stopped = true;
    clearInterval(timer);
    clearInterval(sweeper);
    await serial.idle();
  })();

  return {
    done,
    stats: () => ({ active: active.size, queued: queue.size, scheduled: scheduled.size, owned: owned.size }),
    rebalance: () => (stopped ? Promise.resolve({ adopted: 0, released: 0 }) : serial.run(() => followRing('rebalance'))),
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(sweeper);
      for (const inbox of inboxes) inbox.close();
      await done;
    },
  };
}
