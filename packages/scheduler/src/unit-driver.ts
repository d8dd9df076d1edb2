import { ErrorCodes } from '@herald/core';
import {
  deliveryOrderListIdOf,
  unitMachine,
  type CanaryReport,
  type ExecutionUnit,
  type Task,
} from '@herald/core/task';
import type { PreprocessResult, UnitProgressMessage, UnitReplan } from '@herald/transport';
import { fenceOf, type SchedulerContext } from './context';
import { withProgress } from './progress-recorder';
import { unitTotals } from './task-table';
import { addDeadLetters, channelReport, noteChannel } from './channel-report';
import { heldForQuietHours, isHeld, localGroupsReport, plannedLocalGroups } from './local-release';

function canaryReport(sample: number, holdUntil: number): CanaryReport {
  return { sample, state: 'sampling', holdUntil };
}

/** How often a sending task's delivered/offline totals are written back to the task row. */
export const REPORT_EVERY_MS = 250;

/**
 * Drives an admitted task to its end: asks for its pre-processing, stores the
 * planned units, runs each one (unit.run), records every confirmed batch,
 * finishes each unit at its end, keeps the task's report current, and
 * completes the task when every unit is DONE, freeing its slot.
 */
export interface UnitDriver {
  /** Asks a dispatcher to pre-process the task (again, after a stall: the dispatcher answers a repeat with its recorded result). */
  requestPreprocess(task: Task): Promise<void>;
  /** Stores the planned units and runs them; a failed pre-processing fails the task. */
  onPreprocessed(result: PreprocessResult): Promise<void>;
  /** Starts (or restarts from their checkpoints) every unfinished unit of a sending task. */
  runUnits(task: Task, units: ExecutionUnit[]): Promise<void>;
  /** Asks a dispatcher to stream a unit from its checkpoint to its end. */
  sendRun(task: Task, unit: ExecutionUnit): Promise<void>;
  /** Records a confirmed batch; finishes its unit at its end and the task with its last unit. */
  onProgress(progress: UnitProgressMessage): Promise<void>;
  /** Moves a unit off an executor that stopped reporting, as a dispatcher proposed, and runs it on the new one from its checkpoint. */
  onReplan(move: UnitReplan): Promise<void>;
  /** Runs a sending local-time task's held units whose group's release instant has come (local-release.ts). */
  releaseDue(taskId: number): Promise<void>;
}

/** What the unit driver needs from the other parts of the scheduler (wired by scheduler.ts). */
export interface DriverNeeds {
  /** Samples a running task's confirmed count into its progress curve; `final` writes it at once (the curve). */
  sample(taskId: number, final: boolean): Promise<void>;
  /** Stops a sending task's streams and fails it with `error` (halts). */
  fail(task: Task, error: { code: string; message: string }): Promise<void>;
  /** Whether a unit may run now: a canary holds its rest while it samples (canary-gate.ts). Absent: every unit may. */
  mayRun?(task: Task, unit: ExecutionUnit): boolean;
}

export function createUnitDriver(ctx: SchedulerContext, needs: DriverNeeds): UnitDriver {
  const { store, clock, logger, recorder, tasks, metrics } = ctx;
  const movedUnits = ctx.meter.counter(
    'herald_scheduler_moved_units_total',
    'Units moved off an executor that stopped reporting, as a dispatcher proposed (unit.replan)',
  );

  function requestPreprocess(task: Task): Promise<void> {
    return ctx.toDispatcher.send({
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
    const task = tasks.task(result.taskId);
    if (task === undefined || task.state !== 'PREPROCESSING' || result.epoch !== task.epoch) return; // stale or paused meanwhile
    if (!result.ok) {
      await ctx.transition(task, 'fail', { error: { code: result.errorCode, message: result.message } });
      tasks.release(task.id);
      return;
    }
    const hold = (task.rollout?.canary?.holdSeconds ?? 0) * 1000;
    // A canary's sample leads the list (docs/rollouts.md): its hold counts from now, while the sample sends.
    const canary = result.sample === undefined ? {} : { canary: canaryReport(result.sample, clock.now() + hold) };
    const dispatching = await ctx.transition(task, 'preprocessed', {
      filteredListId: result.filteredListId,
      report: {
        total: result.total,
        kept: result.kept,
        removed: result.removed,
        units: result.units.length,
        ...canary,
        ...(result.groups === undefined ? {} : { localGroups: plannedLocalGroups(result.groups) }),
      },
    });
    const created = await store.putUnits(
      task.id,
      fenceOf(dispatching),
      result.units.map((u, unitNo) => ({ unitNo, ...u })),
      clock.now(),
    );
    const sending = await ctx.transition(dispatching, 'dispatched');
    await runUnits(sending, created);
  }

  async function runUnits(task: Task, list: ExecutionUnit[]): Promise<void> {
    const fence = fenceOf(task);
    const current: ExecutionUnit[] = [];
    for (let unit of list) {
      const known = await recorder.latest(task, unit);
      if (unit.state === 'ASSIGNED' || unit.state === 'RUNNING')
        unit = await store.transitionUnit(task.id, unit.unitNo, fence, 'lose', clock.now());
      if (unit.state === 'FAILED') unit = await store.transitionUnit(task.id, unit.unitNo, fence, 'retry', clock.now());
      // A local-time task's unit whose group's instant is still ahead stays unassigned: the tick releases it; a
      // canary's unit past its sample waits for the gate (docs/rollouts.md).
      if (
        unitMachine.can(unit.state, 'assign') &&
        !isHeld(task, unit, clock.now()) &&
        (needs.mayRun?.(task, unit) ?? true)
      ) {
        unit = withProgress(
          await store.transitionUnit(task.id, unit.unitNo, fence, 'assign', clock.now(), unit.executorId),
          known,
        );
        if (unit.checkpoint >= unit.end) unit = await finishUnit(task, unit);
        else await sendRun(task, unit);
      }
      current.push(unit);
    }
    const entry = tasks.get(task.id);
    if (entry !== undefined) entry.units = current;
    if (!(await maybeComplete(task.id))) await needs.sample(task.id, false);
  }

  function sendRun(task: Task, unit: ExecutionUnit): Promise<void> {
    return ctx.toDispatcher.send({
      kind: 'unit.run',
      taskId: task.id,
      epoch: task.epoch,
      unitNo: unit.unitNo,
      // A local-time task's units range over its delivery-order list (group after group), not the sorted one.
      filteredListId: task.report.localGroups === undefined ? task.filteredListId! : deliveryOrderListIdOf(task.id),
      start: unit.start,
      end: unit.end,
      from: unit.checkpoint,
      executorId: unit.executorId,
      realtime: task.priority === 'realtime',
    });
  }

  async function onProgress(progress: UnitProgressMessage): Promise<void> {
    const entry = tasks.get(progress.taskId);
    if (entry === undefined) return;
    if (progress.quietUntil !== undefined) return onQuietHold(progress, progress.quietUntil);
    // A report covering no recipients only says the channel holds the batch in hand.
    if (progress.to === progress.from) return onHold(progress);
    const task = entry.task;
    const list = entry.units;
    const current = list?.find((u) => u.unitNo === progress.unitNo) ?? (await loadUnit(task, progress.unitNo));
    if (current === undefined) return;
    // Past the checkpoint: a batch between them was lost, so the unit is not merely waiting its turn (stall-watch.ts).
    if (progress.epoch === task.epoch && progress.from > current.checkpoint)
      entry.unitStalls.noteGap(task.id, current.unitNo);
    const before = list === undefined || entry.reached ? undefined : unitTotals(list);
    let unit = await recorder.record(task, current, progress, clock.now());
    // A replay (its range recorded already) moves no checkpoint: its dead letters were counted.
    const counted = unit.checkpoint > current.checkpoint;
    if (counted) addDeadLetters(entry, progress.deadLetters);
    const holdChanged = progress.epoch === task.epoch && noteChannel(entry, progress.channel);
    if (before !== undefined && unit.delivered + unit.offline > current.delivered + current.offline) {
      // Once per task and owner; a task taken over with progress already had its first delivery.
      entry.reached = true;
      if (before.delivered + before.offline === 0) metrics.firstDelivery(task, clock.now());
    }
    if (list === undefined) {
      // Paused or stopped meanwhile: the batch was delivered, so keep its checkpoint; a resume must not send it again.
      await recorder.settle(task, unit, clock.now());
      return;
    }
    if (counted && progress.refused !== undefined && progress.epoch === task.epoch && task.state === 'SENDING') {
      // The channel refused the payload itself: every later batch would be refused too (docs/delivery.md).
      logger.error('channel refused a batch whole: the task fails', { taskId: task.id, reason: progress.refused });
      await needs.fail(task, {
        code: ErrorCodes.DELIVERY_REJECTED,
        message: `the delivery channel refused a batch whole: ${progress.refused}`,
      });
      return;
    }
    if (unit.state === 'ASSIGNED')
      unit = withProgress(await store.transitionUnit(task.id, unit.unitNo, fenceOf(task), 'start', clock.now()), unit);
    if (unit.checkpoint >= unit.end && unitMachine.can(unit.state, 'finish')) unit = await finishUnit(task, unit);
    list[list.findIndex((u) => u.unitNo === unit.unitNo)] = unit;
    if (await maybeComplete(task.id)) return;
    await writeReport(task.id, holdChanged);
    await needs.sample(task.id, false);
  }

  /**
   * The channel holds (or no longer holds) a batch of a task sending under
   * this epoch: its report says so at once. The executor repeats a hold's
   * report while it lasts, and each says the executor is alive and its units
   * wait for the channel, not lost: the stall watch gives them the long
   * period (stall-watch.ts), so a hold longer than unitStallMs does not run
   * every unit of the executor again.
   */
  async function onHold(progress: UnitProgressMessage): Promise<void> {
    const entry = tasks.get(progress.taskId);
    if (entry?.units === undefined || entry.task.state !== 'SENDING' || progress.epoch !== entry.task.epoch) return;
    const executorId = entry.units.find((u) => u.unitNo === progress.unitNo)?.executorId;
    if (executorId !== undefined) entry.unitStalls.noteAlive(executorId, clock.now());
    if (noteChannel(entry, progress.channel)) await writeReport(progress.taskId, true);
  }

  /**
   * An executor held a batch of the unit for the task's quiet hours, sending
   * none of it (docs/local-time.md, "Held, or queued offline"). The unit's
   * group waits until `until`, written into the task's report first, so a
   * scheduler taking the task over holds it too; then the unit is taken off
   * its executor (REASSIGNED) with its checkpoint (the batch's start: the
   * executor reports in order). The tick runs it again from there when the hold ends
   * (releaseDue). The rest of its old stream reaches the executor inside the
   * same quiet hours and is held too; their reports find the unit unassigned
   * and change nothing, as does a hold already over or of another epoch.
   */
  async function onQuietHold(progress: UnitProgressMessage, until: number): Promise<void> {
    const entry = tasks.get(progress.taskId);
    const list = entry?.units;
    const now = clock.now();
    if (entry === undefined || list === undefined || entry.task.state !== 'SENDING') return;
    if (progress.epoch !== entry.task.epoch || until <= now) return;
    const task = entry.task;
    const at = list.findIndex((u) => u.unitNo === progress.unitNo);
    const unit = list[at];
    if (unit === undefined || (unit.state !== 'ASSIGNED' && unit.state !== 'RUNNING')) return;
    const localGroups = heldForQuietHours(task, unit, until, now);
    if (localGroups === undefined) {
      // Not grouped (pre-processed without local-time grouping): nothing to hold it by; its stall re-run comes.
      logger.warn('quiet-hours hold of a unit in no local-time group: left to its stall re-run', {
        taskId: task.id,
        unitNo: unit.unitNo,
      });
      return;
    }
    entry.task = { ...task, report: { ...task.report, localGroups } };
    await writeReport(task.id, true);
    await recorder.settle(entry.task, unit, now);
    list[at] = withProgress(await store.transitionUnit(task.id, unit.unitNo, fenceOf(entry.task), 'lose', now), unit);
    logger.info('unit held for quiet hours', { taskId: task.id, unitNo: unit.unitNo, until, from: progress.from });
  }

  /**
   * The dispatcher found the unit's executor silent (no load report) and
   * streamed nothing (dispatcher/src/replan.ts). Taken only while the unit
   * still runs there under this epoch: a late or repeated proposal changes
   * nothing. The move is stored before the unit.run goes out, so the new
   * executor finds the unit assigned to it, and the old one, if it comes
   * back, finds it assigned elsewhere and drops the batches still queued for
   * it (executor/src/unit-assignments.ts).
   */
  async function onReplan(move: UnitReplan): Promise<void> {
    const entry = tasks.get(move.taskId);
    const list = entry?.units;
    if (entry === undefined || list === undefined || entry.task.state !== 'SENDING' || entry.task.epoch !== move.epoch)
      return;
    const task = entry.task;
    const at = list.findIndex((u) => u.unitNo === move.unitNo);
    const unit = list[at];
    if (
      unit === undefined ||
      (unit.state !== 'ASSIGNED' && unit.state !== 'RUNNING') ||
      unit.executorId !== move.from ||
      move.to === move.from
    )
      return;
    const known = withProgress(unit, await recorder.latest(task, unit));
    await store.transitionUnit(task.id, unit.unitNo, fenceOf(task), 'lose', clock.now());
    const moved = withProgress(
      await store.transitionUnit(task.id, unit.unitNo, fenceOf(task), 'assign', clock.now(), move.to),
      known,
    );
    list[at] = moved;
    movedUnits.inc();
    logger.warn('unit moved off an executor that stopped reporting; running it from its checkpoint', {
      taskId: task.id,
      unitNo: unit.unitNo,
      from: move.from,
      to: move.to,
      checkpoint: moved.checkpoint,
    });
    await sendRun(task, moved);
  }

  async function releaseDue(taskId: number): Promise<void> {
    const entry = tasks.get(taskId);
    const list = entry?.units;
    if (entry === undefined || list === undefined || entry.task.state !== 'SENDING') return;
    const task = entry.task;
    if (task.report.localGroups === undefined) return;
    const now = clock.now();
    let released = 0;
    for (let at = 0; at < list.length; at++) {
      const unit = list[at]!;
      if (!unitMachine.can(unit.state, 'assign') || isHeld(task, unit, now)) continue;
      const assigned = withProgress(
        await store.transitionUnit(task.id, unit.unitNo, fenceOf(task), 'assign', now, unit.executorId),
        unit,
      );
      list[at] = assigned;
      await sendRun(task, assigned);
      released++;
    }
    if (released === 0) return;
    logger.info('local-time units released', { taskId, units: released });
    await writeReport(taskId, true);
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

  /** Writes the task's delivered/offline totals to its row, at most every REPORT_EVERY_MS unless forced. */
  async function writeReport(taskId: number, force: boolean): Promise<void> {
    const entry = tasks.get(taskId);
    const now = clock.now();
    if (entry === undefined || (!force && now - entry.lastReportAt < REPORT_EVERY_MS)) return;
    entry.lastReportAt = now;
    const report = { ...unitTotals(entry.units), ...channelReport(entry, true), ...groupsOf(entry.task, entry.units) };
    tasks.hold(await store.updateTask(taskId, fenceOf(entry.task), { report }, now));
  }

  /** Completes a sending task whose units are all DONE, and frees its slot; true when it did. */
  async function maybeComplete(taskId: number): Promise<boolean> {
    const entry = tasks.get(taskId);
    const list = entry?.units;
    if (entry === undefined || list === undefined || entry.task.state !== 'SENDING') return false;
    if (!list.every((u) => u.state === 'DONE')) return false;
    await needs.sample(taskId, true);
    const completed = await ctx.transition(entry.task, 'complete', {
      report: { ...unitTotals(list), ...channelReport(entry, false), ...groupsOf(entry.task, list) },
    });
    metrics.completed(completed, clock.now());
    logger.info('task completed', { taskId, ...unitTotals(list) });
    tasks.release(taskId);
    return true;
  }

  return { requestPreprocess, onPreprocessed, runUnits, sendRun, onProgress, onReplan, releaseDue };
}

/** A local-time task's groups with their counts, for a report patch; nothing for a task of one instant. */
function groupsOf(task: Task, units: readonly ExecutionUnit[] | undefined) {
  const localGroups = localGroupsReport(task, units ?? []);
  return localGroups === undefined ? {} : { localGroups };
}
