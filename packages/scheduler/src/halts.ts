import { taskMachine, unitMachine, type Task } from '@herald/core/task';
import type { TaskCommand } from '@herald/transport';
import { fenceOf, type SchedulerContext } from './context';
import { unitTotals } from './task-table';
import { channelReport } from './channel-report';

/** The events that stop a task's streams. */
export type HaltEvent = 'pause' | 'cancel' | 'expire' | 'preempt' | 'fail';

/** What halts need from the other parts of the scheduler (wired by scheduler.ts). */
export interface HaltNeeds {
  /** The task a command names, claimed first if the ring gives it to this scheduler (ownership). */
  ensureOwned(taskId: number): Promise<Task | undefined>;
  /** Puts a resumed task back on schedule or in the queue (admission). */
  resume(task: Task): Promise<void>;
}

/**
 * Stopping a task: pause, cancel, expiry and preemption, and the commands
 * (pause, cancel, resume) that come from the interface.
 */
export interface Halts {
  /** Applies a task.command to the task it names, when its state allows it. */
  onCommand(command: TaskCommand): Promise<void>;
  /** Halts the task if its expiry has passed; true when it did. */
  expireIfDue(task: Task, now: number): Promise<boolean>;
  /**
   * Stops a task: its streams first (task.halt), then its state and its units
   * at their checkpoints. A task that was SENDING gets a halt that closes its
   * epoch, so executors drop its batches still on the way; it resumes, if
   * ever, under a new epoch (ownership's `claimAgain`).
   */
  halt(task: Task, event: HaltEvent, error?: TaskError): Promise<void>;
  /**
   * The first part of a halt: streams stopped, state changed, slot freed.
   * Returns the second: the units stopped at their checkpoints (two writes per
   * unit, more with the coordinator recorder), which a preemption runs later.
   */
  stopSending(task: Task, event: HaltEvent, error?: TaskError): Promise<() => Promise<void>>;
}

/** Why a task failed, as its record keeps it (a `fail` halt). */
export type TaskError = { code: string; message: string };

export function createHalts(ctx: SchedulerContext, needs: HaltNeeds): Halts {
  const { store, clock, logger, recorder, tasks } = ctx;

  async function stopSending(task: Task, event: HaltEvent, error?: TaskError): Promise<() => Promise<void>> {
    const held = tasks.get(task.id);
    const list = held?.units ?? (task.filteredListId !== null ? await store.listUnits(task.id) : []);
    const closesEpoch = task.state === 'SENDING';
    if (closesEpoch && held !== undefined) held.closedEpoch = task.epoch;
    await ctx.toDispatcher.send({
      kind: 'task.halt',
      taskId: task.id,
      epoch: task.epoch,
      ...(closesEpoch ? { closesEpoch: true as const } : {}),
    });
    const report = {
      ...unitTotals(tasks.get(task.id)?.units),
      ...(held === undefined ? {} : channelReport(held, false)),
    };
    const stopped = await ctx.transition(task, event, { report, ...(error === undefined ? {} : { error }) });
    const entry = tasks.get(task.id);
    if (entry !== undefined) entry.scheduled = false;
    tasks.dequeue(task.id);
    tasks.release(task.id);
    const unitEvent = event === 'cancel' || event === 'expire' || event === 'fail' ? 'cancel' : 'stop';
    return async () => {
      for (const unit of list) {
        await recorder.settle(stopped, unit, clock.now());
        if (unitMachine.can(unit.state, unitEvent))
          await store.transitionUnit(task.id, unit.unitNo, fenceOf(stopped), unitEvent, clock.now());
      }
    };
  }

  async function halt(task: Task, event: HaltEvent, error?: TaskError): Promise<void> {
    const stopUnits = await stopSending(task, event, error);
    await stopUnits();
  }

  return {
    halt,
    stopSending,
    async expireIfDue(task, now) {
      if (task.expiresAt > now || !taskMachine.can(task.state, 'expire')) return false;
      await halt(task, 'expire');
      return true;
    },
    async onCommand(command) {
      const task = await needs.ensureOwned(command.taskId);
      if (task === undefined) return;
      const event = command.command;
      if (!taskMachine.can(task.state, event)) {
        logger.warn('command not allowed in the task state', { taskId: task.id, command: event, state: task.state });
        return;
      }
      if (event !== 'resume') await halt(task, event);
      else await needs.resume(task);
    },
  };
}
