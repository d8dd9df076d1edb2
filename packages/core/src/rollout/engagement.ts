/*
 * Click-through for canaries (docs/rollouts.md, "Click-through"): an app
 * backend reports a task's engagement as running totals
 * (POST /api/v1/tasks/:id/engagement); a canary with `minClickThrough` is
 * judged on it after its hold, only if engagement was reported. Totals, not
 * increments: a retried or repeated report never counts twice, and the
 * stored totals only grow (mergeEngagement). Pure.
 */
import { ValidationError } from '../errors';
import type { CanaryThresholds } from './model';

/** A task's reported engagement, as its report keeps it. */
export interface TaskEngagement {
  /** Clicks (or opens that count as clicks) on the task's message, a running total. */
  clicks: number;
  /** Opens, a running total, when the reporter counts them: kept and shown, not judged. */
  opens?: number;
  /** When the last report that changed a count arrived (epoch ms). */
  reportedAt: number;
}

/** The largest count a report may carry (a safe integer far above any audience). */
export const MAX_ENGAGEMENT_COUNT = 1e12;

const count = (field: string, value: unknown): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_ENGAGEMENT_COUNT)
    throw new ValidationError(`${field} must be a whole number in 0..${MAX_ENGAGEMENT_COUNT}`, { field, value });
  return value;
};

/** A report's body: `{ clicks, opens? }`, running totals; anything else refused, naming the field. */
export function parseEngagement(body: unknown): { clicks: number; opens?: number } {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('the body must be { clicks, opens? }', { field: 'body' });
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (key !== 'clicks' && key !== 'opens')
      throw new ValidationError(`${key} is not a known field`, { field: key, value: input[key] });
  if (input.clicks === undefined) throw new ValidationError('clicks is required', { field: 'clicks' });
  return {
    clicks: count('clicks', input.clicks),
    ...(input.opens === undefined ? {} : { opens: count('opens', input.opens) }),
  };
}

/** Stored engagement after a report: each count the larger of the two, so a late, smaller total never lowers it. */
export function mergeEngagement(stored: TaskEngagement | undefined, reported: TaskEngagement): TaskEngagement {
  if (stored === undefined) return { ...reported };
  const clicks = Math.max(stored.clicks, reported.clicks);
  const opens =
    stored.opens === undefined && reported.opens === undefined
      ? undefined
      : Math.max(stored.opens ?? 0, reported.opens ?? 0);
  const changed = clicks !== stored.clicks || opens !== stored.opens;
  return {
    clicks,
    ...(opens === undefined ? {} : { opens }),
    reportedAt: changed ? Math.max(stored.reportedAt, reported.reportedAt) : stored.reportedAt,
  };
}

/** A stored engagement as the store checks it: counts and a time. */
export function isTaskEngagement(value: unknown): value is TaskEngagement {
  const e = value as Partial<TaskEngagement> | null;
  const isCount = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_ENGAGEMENT_COUNT;
  return (
    e !== null &&
    typeof e === 'object' &&
    Object.keys(e).every((k) => k === 'clicks' || k === 'opens' || k === 'reportedAt') &&
    isCount(e.clicks) &&
    (e.opens === undefined || isCount(e.opens)) &&
    Number.isSafeInteger(e.reportedAt) &&
    (e.reportedAt as number) >= 0
  );
}

/** What a canary's sample is judged by; `clickThrough` only when engagement was reported. */
export interface CanaryRatios {
  rejectedRatio: number;
  failedRatio: number;
  /** Clicks over the sample's recipients delivered online; absent: no engagement reported, not judged. */
  clickThrough?: number;
}

/**
 * Clicks reported over the recipients delivered online (the rate the
 * analytics side reports for accounts: clicks / delivered), or undefined
 * when nothing was reported or nothing delivered: then it is not judged.
 */
export function clickThroughOf(engagement: TaskEngagement | undefined, delivered: number): number | undefined {
  if (engagement === undefined || delivered <= 0) return undefined;
  return engagement.clicks / delivered;
}

/**
 * The canary's breach in words, or undefined when the sample is healthy:
 * rejections or failures over their thresholds, or, with `minClickThrough`
 * and engagement reported, a click-through under it.
 */
export function canaryBreach(sample: number, thresholds: CanaryThresholds, ratios: CanaryRatios): string | undefined {
  const percent = (x: number) => `${(x * 100).toFixed(2)}%`;
  if (ratios.rejectedRatio > thresholds.rejectedRatio)
    return `the channel rejected ${percent(ratios.rejectedRatio)} of the canary's ${sample} recipients (threshold ${percent(thresholds.rejectedRatio)})`;
  if (ratios.failedRatio > thresholds.failedRatio)
    return `${percent(ratios.failedRatio)} of the canary's ${sample} recipients were still not confirmed when its hold ended (threshold ${percent(thresholds.failedRatio)})`;
  const min = thresholds.minClickThrough;
  if (min !== undefined && ratios.clickThrough !== undefined && ratios.clickThrough < min)
    return `the canary's recipients clicked through at ${percent(ratios.clickThrough)} of those delivered, of ${sample} (minimum ${percent(min)})`;
  return undefined;
}
