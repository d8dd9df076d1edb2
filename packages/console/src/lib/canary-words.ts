import type { CanaryReport, CanarySpec, Task } from '../api/types';
import { fmtInt, fmtRelative, fmtSetShare, fmtShare, fmtTime } from './format';

/**
 * A canary task's panel in words (docs/rollouts.md, "How it runs" and
 * "Click-through"): where the canary stands, which threshold it broke when
 * it paused itself, and the engagement an app backend reported against the
 * minimum click-through. Pure.
 */

type Thresholds = CanarySpec['thresholds'];

/**
 * A click-through with two decimals, as the server's reason words it, so a
 * rate just under its minimum never reads as equal to it (1.96% under 2%).
 */
export const clickThroughText = (ratio: number): string => `${+(ratio * 100).toFixed(2)}%`;

export type CanaryBreach = 'rejected' | 'failed' | 'clickThrough';

/**
 * Which threshold a failed canary broke, judged in the server's order (core
 * rollout canaryBreach): rejections, then failures, then a click-through
 * under its minimum; undefined while it has not failed or when the ratios
 * it reports break none (a stored canary of an older server).
 */
export function canaryBreachOf(canary: CanaryReport, thresholds: Thresholds | undefined): CanaryBreach | undefined {
  if (canary.state !== 'failed' || thresholds === undefined) return undefined;
  if ((canary.rejectedRatio ?? 0) > thresholds.rejectedRatio) return 'rejected';
  if ((canary.failedRatio ?? 0) > thresholds.failedRatio) return 'failed';
  const min = thresholds.minClickThrough;
  if (min !== undefined && canary.clickThrough !== undefined && canary.clickThrough < min) return 'clickThrough';
  return undefined;
}

const PAUSED = 'The broadcast paused itself; nobody beyond the sample was sent anything.';

function failedText(task: Task, canary: CanaryReport): string {
  const thresholds = task.rollout?.canary?.thresholds;
  if (canaryBreachOf(canary, thresholds) === 'clickThrough')
    return `Failed: too few clicks. ${clickThroughText(canary.clickThrough!)} of the sample's recipients delivered online clicked, under the minimum of ${fmtSetShare(thresholds!.minClickThrough!)}. ${PAUSED}`;
  const reason =
    task.error?.code === 'CANARY_FAILED'
      ? task.error.message
      : `over a threshold (rejected ${fmtShare(canary.rejectedRatio ?? 0)}, failed ${fmtShare(canary.failedRatio ?? 0)})`;
  return `Failed: ${reason}. ${PAUSED}`;
}

/** Where the canary stands, in words. */
export function canaryText(task: Task, canary: CanaryReport, now: number): string {
  const sample = `${fmtInt(canary.sample)} recipients`;
  switch (canary.state) {
    case 'sampling':
      return task.report.delivered + task.report.offline < canary.sample
        ? `Sending to the sample of ${sample}; the rest waits.`
        : `Holding after the sample of ${sample}: judged at ${fmtTime(canary.holdUntil)} (${fmtRelative(canary.holdUntil, now)}).`;
    case 'failed':
      return failedText(task, canary);
    case 'passed':
      return `Passed: the sample of ${sample} stayed under the thresholds (rejected ${fmtShare(canary.rejectedRatio ?? 0)}, failed ${fmtShare(canary.failedRatio ?? 0)}); the rest is sent.`;
    case 'promoted':
      return `Promoted by hand after the sample of ${sample}: the rest is sent.`;
  }
}

/** A canary that may still go either way: still sampling, or paused by its failure. */
export function canaryUndecided(task: Task, canary: CanaryReport): boolean {
  return (
    (task.state === 'SENDING' && canary.state === 'sampling') || (task.state === 'PAUSED' && canary.state === 'failed')
  );
}

/** The canary panel's engagement rows; undefined when there is nothing to say (no minimum, nothing reported). */
export interface EngagementRows {
  /** "37 clicks, 410 opens; last raised 16:40:01 (2 min ago)", or that none were reported. */
  clicks: string;
  /** The rate and what it is over, or why there is none yet. */
  clickThrough: string;
  /** The minimum as set and what it does, or that click-through is not judged. */
  minimum: string;
}

const plural = (n: number, one: string) => `${fmtInt(n)} ${one}${n === 1 ? '' : 's'}`;

function clickThroughRow(task: Task, canary: CanaryReport): string {
  const { engagement, delivered } = task.report;
  if (canary.clickThrough !== undefined)
    return `${clickThroughText(canary.clickThrough)} of the sample's recipients delivered online, judged when the hold ended`;
  if (engagement === undefined)
    return canary.state === 'sampling'
      ? 'Not known yet: if no clicks are reported by the end of the hold, click-through is not judged.'
      : 'Not judged: no clicks were reported by the end of the hold.';
  if (delivered <= 0) return 'Not known yet: nobody was delivered online so far.';
  // While it samples only the sample has been sent, so the task's online deliveries are the sample's.
  const over = canary.state === 'sampling' ? 'of the sample so far' : 'of the task';
  return `${clickThroughText(engagement.clicks / delivered)} ${over} (${fmtInt(engagement.clicks)} of ${fmtInt(delivered)} delivered online)`;
}

/**
 * The engagement reported for a canary task, against its minimum
 * click-through (thresholds.minClickThrough): shown when a minimum is set or
 * clicks were reported.
 */
export function engagementRows(task: Task, canary: CanaryReport, now: number): EngagementRows | undefined {
  const min = task.rollout?.canary?.thresholds.minClickThrough;
  const { engagement } = task.report;
  if (min === undefined && engagement === undefined) return undefined;
  const clicks =
    engagement === undefined
      ? 'None reported yet.'
      : `${[plural(engagement.clicks, 'click'), ...(engagement.opens === undefined ? [] : [plural(engagement.opens, 'open')])].join(', ')}; last raised ${fmtTime(engagement.reportedAt)} (${fmtRelative(engagement.reportedAt, now)})`;
  return {
    clicks,
    clickThrough: clickThroughRow(task, canary),
    minimum:
      min === undefined
        ? 'Not set: click-through is not judged.'
        : `${fmtSetShare(min)}: below it when the hold ends, the broadcast pauses itself.`,
  };
}
