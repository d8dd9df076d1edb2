import { ErrorCodes } from '@herald/core';
import { canaryBreach, clickThroughOf, type CanaryRatios, type CanaryThresholds } from '@herald/core/rollout';
import type { CanaryReport, ExecutionUnit, Task } from '@herald/core/task';
import { fenceOf, type SchedulerContext } from './context';
import { unitTotals } from './task-table';
import { channelReport } from './channel-report';

/**
 * The canary's hold (docs/rollouts.md, "Canary"). The dispatcher put the
 * sample in the first positions and planned units that never cross into the
 * rest; this gate keeps the rest's units PENDING while the canary samples,
 * and on each tick judges a canary whose hold has ended: under both
 * thresholds (and with the sample's units all done) the rest runs; over
 * either, the task pauses itself with the reason. Everything it reads is in
 * the store (the task's report, its units), so a new owner after a failover
 * rebuilds the same hold without any state of its own.
 */
export interface CanaryGate {
  /** Whether the unit may run now: false only for a rest unit of a canary still sampling. */
  mayRun(task: Task, unit: ExecutionUnit): boolean;
  /** Judges every owned canary whose hold ended, and takes an operator's promote from the store. */
  checkDue(now: number): Promise<void>;
}

/** What the gate needs from the other parts of the scheduler (wired by scheduler.ts). */
export interface CanaryNeeds {
  /** Assigns and runs the task's units that are not running yet (the rest, once released). */
  runPending(task: Task): Promise<void>;
  /** Pauses the task with its reason (halts). */
  pause(task: Task, error: { code: string; message: string }): Promise<void>;
}

/** The canary's threshold breach, in words (core rollout/engagement.ts), or undefined when the sample is healthy. */
export function breachOf(canary: CanaryReport, thresholds: CanaryThresholds, ratios: CanaryRatios): string | undefined {
  return canaryBreach(canary.sample, thresholds, ratios);
}

export function createCanaryGate(ctx: SchedulerContext, needs: CanaryNeeds): CanaryGate {
  const { store, tasks, logger } = ctx;

  const sampling = (task: Task) => task.report.canary?.state === 'sampling';

  /**
   * The sample's ratios now: dead letters over the sample (the scheduler's own
   * count, which runs ahead of the stored report); recipients of its units
   * not yet confirmed over the sample.
   */
  function ratiosOf(task: Task, units: readonly ExecutionUnit[], sample: number) {
    let confirmed = 0;
    for (const u of units) if (u.end <= sample) confirmed += u.checkpoint - u.start;
    const deadLetters = tasks.get(task.id)?.deadLetters ?? task.report.deadLetters ?? {};
    const rejected = Object.values(deadLetters).reduce((a, b) => a + b, 0);
    return { rejectedRatio: rejected / sample, failedRatio: (sample - confirmed) / sample };
  }

  async function release(task: Task, canary: CanaryReport): Promise<void> {
    const next = await write(task, { canary });
    logger.info('canary released: sending the rest', { taskId: task.id, state: canary.state });
    await needs.runPending(next);
  }

  /**
   * The sample is judged once the hold has ended: its rejections once all of
   * it was sent (a part would judge by too few), its failures at once (what
   * the channel has not taken by the end of the hold counts as failed).
   */
  async function judge(task: Task, units: readonly ExecutionUnit[], now: number): Promise<void> {
    const canary = task.report.canary!;
    // An operator's promote is written to the store by the interface: take it from there.
    const stored = await store.getTask(task.id);
    if (stored?.report.canary?.state === 'promoted') return release(task, stored.report.canary);
    const sampleDone = units.every((u) => u.end > canary.sample || u.state === 'DONE');
    // Nothing else writes the report while the rest waits: show the sample's totals once it is sent.
    const totals = unitTotals(units);
    if (sampleDone && task.report.delivered + task.report.offline !== totals.delivered + totals.offline)
      task = await write(task, { ...totals, ...channelReport(tasks.get(task.id)!, true) });
    if (now < canary.holdUntil) return;
    const thresholds = task.rollout?.canary?.thresholds;
    if (thresholds === undefined || canary.sample <= 0) return release(task, { ...canary, state: 'passed' });
    // Click-through is judged only once an app backend reported engagement (read from the store, where the API writes it).
    // Over the sample's online deliveries: only the sample has been sent, and its totals are in the report once it is.
    const clickThrough = clickThroughOf(stored?.report.engagement, task.report.delivered);
    const ratios = { ...ratiosOf(task, units, canary.sample), ...(clickThrough === undefined ? {} : { clickThrough }) };
    // Rejections and clicks are judged on the whole sample only: part of it would judge by too few.
    const breach = breachOf(
      canary,
      thresholds,
      sampleDone ? ratios : { rejectedRatio: 0, failedRatio: ratios.failedRatio },
    );
    if (breach !== undefined) {
      const failed = { ...canary, state: 'failed' as const, ...ratios };
      logger.warn('canary failed: the task pauses itself', { taskId: task.id, reason: breach });
      const held = await write(task, { canary: failed });
      await needs.pause(held, { code: ErrorCodes.CANARY_FAILED, message: breach });
      return;
    }
    // Healthy so far, but the sample is not all sent: judged again on a later tick, when it is.
    if (!sampleDone) return;
    await release(task, { ...canary, state: 'passed', ...ratios });
  }

  async function write(task: Task, report: Partial<Task['report']>): Promise<Task> {
    const next = await store.updateTask(task.id, fenceOf(task), { report }, ctx.clock.now());
    tasks.hold(next);
    return next;
  }

  return {
    mayRun: (task, unit) => !sampling(task) || unit.end <= task.report.canary!.sample,
    async checkDue(now) {
      for (const entry of tasks.all()) {
        if (entry.task.state !== 'SENDING' || entry.units === undefined || !sampling(entry.task)) continue;
        await judge(entry.task, entry.units, now);
      }
    },
  };
}
