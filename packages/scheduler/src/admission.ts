import { FencedError, isHeraldError } from '@herald/core';
import { scheduleScore } from '@herald/core/schedule';
import type { ExecutionUnit, Task } from '@herald/core/task';
import type { SchedulerContext } from './context';
import { unitTotals } from './task-table';

/** What admission needs from the other parts of the scheduler (wired by scheduler.ts). */
export interface AdmissionNeeds {
  /** Asks a dispatcher to pre-process the task (the unit driver). */
  requestPreprocess(task: Task): Promise<void>;
  /** Starts, or restarts from their checkpoints, a sending task's units (the unit driver). */
  runUnits(task: Task, units: ExecutionUnit[]): Promise<void>;
  /** The first part of a preemption: streams stopped, PREEMPTED, slot free; returns the rest (halts). */
  stopSending(task: Task, event: 'preempt'): Promise<() => Promise<void>>;
  /** Takes a new epoch for a task whose epoch a halt closed (ownership). */
  claimAgain(task: Task): Promise<Task>;
  /** Records why the tasks still queued wait, after a pass (the progress curve). */
  noteWaiting(): Promise<void>;
}

/**
 * Where a task waits and when it gets an executor slot: the send-time wait
 * (SCHEDULED), the ready queue by schedule score, admission while slots are
 * free, and preemption of a normal task for a real-time one
 * (docs/scheduling.md).
 */
export interface Admission {
  /** Puts a task just claimed where its stored state says it waits (a new task, or one recovered). */
  enter(task: Task): Promise<void>;
  /** Puts a task in the ready queue at its current score. */
  enqueue(task: Task): void;
  /** A paused task resumed: back on schedule before its send time, else in the queue. */
  resume(task: Task): Promise<void>;
  /** Moves a SCHEDULED task whose send time has come to the queue. */
  wakeIfDue(task: Task, now: number): Promise<void>;
  /** Scores the queue again by the clock (aging). */
  rekey(): void;
  /** Admits the best queued tasks while slots are free, preempting for a real-time task when none is. */
  pump(): Promise<void>;
}

export function createAdmission(ctx: SchedulerContext, needs: AdmissionNeeds): Admission {
  const { config, store, clock, logger, tasks } = ctx;
  const preemptions = ctx.meter.counter(
    'herald_scheduler_preemptions_total',
    'Normal tasks stopped at their checkpoints to free an executor slot for a real-time task',
  );

  const scoreOf = (task: Task) =>
    scheduleScore(
      {
        priority: task.priority,
        readySince: Math.max(task.sendAt, task.createdAt),
        recipients: task.listCount,
        expiresAt: task.expiresAt,
      },
      clock.now(),
    );
  const enqueue = (task: Task) => tasks.enqueue(task.id, scoreOf(task));
  const schedule = (task: Task) => void (tasks.hold(task).scheduled = true);

  async function enter(task: Task): Promise<void> {
    switch (task.state) {
      case 'CREATED':
        if (task.sendAt > clock.now()) schedule(await ctx.transition(task, 'schedule'));
        else enqueue(await ctx.transition(task, 'enqueue'));
        return;
      case 'SCHEDULED':
        schedule(task);
        return;
      case 'QUEUED':
      case 'PREEMPTED':
        enqueue(task);
        return;
      case 'PREPROCESSING':
      case 'DISPATCHING':
      case 'SENDING':
        enqueue(await ctx.transition(task, 'requeue'));
        return;
      default:
        return; // PAUSED waits for resume; terminal states need nothing.
    }
  }

  /** The best queued task that can still be admitted; stale queue entries met on the way are dropped. */
  function bestReady(): Task | undefined {
    for (let id = tasks.peekReady(); id !== undefined; id = tasks.peekReady()) {
      const task = tasks.task(id);
      if (task !== undefined && (task.state === 'QUEUED' || task.state === 'PREEMPTED')) return task;
      tasks.popReady();
    }
    return undefined;
  }

  /**
   * Admits the best queued tasks while slots are free. When none is free and
   * the best queued task is real-time, one normal task is preempted to make
   * room for it (see `preemptFor`); a normal task never preempts anything.
   */
  async function pump(): Promise<void> {
    await admitWhileFree();
    await needs.noteWaiting();
  }

  async function admitWhileFree(): Promise<void> {
    /** What is left of each preemption of this pass: the victim's units to stop, once the real-time task is admitted. */
    const stopping: (() => Promise<void>)[] = [];
    try {
      for (let task = bestReady(); task !== undefined; task = bestReady()) {
        if (tasks.active >= config.scheduler.slots) {
          const rest = await preemptFor(task);
          if (rest === undefined) return;
          stopping.push(rest);
          continue; // the freed slot goes to the best queued task: this one
        }
        tasks.popReady();
        tasks.takeSlot(tasks.hold(task));
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
   * stopped at their checkpoints in the store, which `pump` runs once it has
   * admitted the real-time task, so that they overlap its pre-processing
   * instead of delaying it. Nothing else runs in between (one pump, one serial
   * job), and the counter and the log come after them, when the halt is
   * complete.
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
    let order = Infinity;
    for (const entry of tasks.all()) {
      const candidate = entry.task;
      if (!entry.active || candidate.priority !== 'normal' || candidate.state !== 'SENDING') continue;
      const score = scoreOf(candidate);
      if (score < lowest || (score === lowest && entry.slotOrder < order))
        [victim, lowest, order] = [candidate, score, entry.slotOrder];
    }
    if (victim === undefined) return undefined;
    const progress = unitTotals(tasks.get(victim.id)?.units);
    const stopUnits = await needs.stopSending(victim, 'preempt');
    const preempted = tasks.task(victim.id)!;
    enqueue(preempted);
    return async () => {
      // Resumed (or dropped) in this same pass, its units belong to that run now: leave them be.
      const now = tasks.task(victim.id);
      if (now?.state === 'PREEMPTED' && now.epoch === preempted.epoch) await stopUnits();
      preemptions.inc();
      logger.info('task preempted for a real-time task', {
        taskId: victim.id,
        for: task.id,
        score: Math.round(lowest),
        delivered: progress.delivered,
        offline: progress.offline,
      });
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
      const now = tasks.task(task.id);
      if (error instanceof FencedError) {
        logger.warn('lost ownership of a task while admitting it; dropping it', { taskId: task.id });
        tasks.forget(task.id);
        return true;
      }
      if (now !== undefined && (now.state === 'QUEUED' || now.state === 'PREEMPTED')) {
        tasks.release(task.id);
        enqueue(now);
      }
      ctx.metrics.failed(error);
      logger.error('admitting a task failed; it waits for the next pump', {
        taskId: task.id,
        state: now?.state,
        error: String(error),
        code: isHeraldError(error) ? error.code : undefined,
      });
      return false;
    }
  }

  async function admit(task: Task): Promise<void> {
    // Units exist once pre-processing was done and planned: resume from their checkpoints.
    const existing = task.filteredListId === null ? [] : await store.listUnits(task.id);
    if (existing.length > 0) {
      let sending = await ctx.transition(task, 'resumeSending');
      if (tasks.get(task.id)?.closedEpoch === sending.epoch) sending = await needs.claimAgain(sending);
      await needs.runUnits(sending, existing);
      return;
    }
    await needs.requestPreprocess(await ctx.transition(task, 'admit'));
  }

  return {
    enter,
    enqueue,
    async resume(task) {
      // Resumed before its send time: back on schedule, not straight into the queue.
      if (task.sendAt > clock.now()) schedule(await ctx.transition(task, 'schedule'));
      else enqueue(await ctx.transition(task, 'resume'));
    },
    async wakeIfDue(task, now) {
      if (task.state !== 'SCHEDULED' || task.sendAt > now) return;
      const entry = tasks.get(task.id);
      if (entry !== undefined) entry.scheduled = false;
      enqueue(await ctx.transition(task, 'enqueue'));
    },
    rekey: () => tasks.rekey(scoreOf),
    pump,
  };
}
