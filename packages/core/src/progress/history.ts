import { ValidationError } from '../errors';

/** One point of a task's progress curve: how many recipients were confirmed (delivered or queued offline) by `at`. */
export interface ProgressSample {
  /** Epoch ms. */
  at: number;
  /** Delivered + offline, over the whole task. */
  confirmed: number;
}

/**
 * A task's confirmed counts over time, as its owning scheduler recorded them:
 * ascending `at`, never decreasing `confirmed`, at most `maxSamples` points.
 * Every point but the last is at least `intervalMs` after the one before; the
 * last (the head) is the newest count, moved forward until the interval has
 * passed. When the curve outgrows its bound every other point is dropped and
 * the interval doubles, so a task of any length keeps a bounded curve whose
 * resolution is its length over `maxSamples`.
 */
export interface ProgressHistory {
  intervalMs: number;
  samples: ProgressSample[];
}

export interface HistoryLimits {
  /** The finest spacing, while the curve is young. */
  intervalMs: number;
  /** At most this many points, whatever the task's length. At least 4. */
  maxSamples: number;
}

/** One sample a second, at most 512 points: about 8 minutes at full resolution, 6 KB of JSON at most. */
export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { intervalMs: 1000, maxSamples: 512 };

export function emptyHistory(limits: HistoryLimits = DEFAULT_HISTORY_LIMITS): ProgressHistory {
  return { intervalMs: limits.intervalMs, samples: [] };
}

/**
 * The history with `sample` taken in. A sample older than the head (another
 * owner's clock behind) counts at the head's time; a count below the head's
 * (a replay) is raised to it, so the curve never goes back. Returns a new
 * history; the argument is not changed.
 */
export function addSample(
  history: ProgressHistory,
  sample: ProgressSample,
  limits: HistoryLimits = DEFAULT_HISTORY_LIMITS,
): ProgressHistory {
  const samples = history.samples.slice();
  const head = samples[samples.length - 1];
  const next: ProgressSample =
    head === undefined
      ? { at: sample.at, confirmed: sample.confirmed }
      : { at: Math.max(sample.at, head.at), confirmed: Math.max(sample.confirmed, head.confirmed) };
  const beforeHead = samples[samples.length - 2];
  // The head moves forward until it is an interval past the point before it; then a new head starts.
  if (beforeHead !== undefined && next.at - beforeHead.at < history.intervalMs) samples[samples.length - 1] = next;
  else if (head !== undefined && head.at === next.at) samples[samples.length - 1] = next;
  else samples.push(next);
  let thinned: ProgressHistory = { intervalMs: history.intervalMs, samples };
  while (thinned.samples.length > limits.maxSamples) thinned = halveResolution(thinned);
  return thinned;
}

/** Every other point dropped (the first and the head always kept), the interval doubled. */
export function halveResolution(history: ProgressHistory): ProgressHistory {
  const { samples } = history;
  const kept = samples.filter((_, i) => i % 2 === 0 || i === samples.length - 1);
  return { intervalMs: history.intervalMs * 2, samples: kept };
}

/**
 * Recipients confirmed a second over the last `windowMs` of the curve (ending
 * at its head), from the first point at or before the window's start: the
 * current rate. 0 for a curve of fewer than two points or no time between them.
 */
export function recentRate(history: ProgressHistory, windowMs: number): number {
  const { samples } = history;
  const head = samples[samples.length - 1];
  if (head === undefined || samples.length < 2) return 0;
  let from = samples[0]!;
  for (let i = samples.length - 2; i >= 0; i--) {
    from = samples[i]!;
    if (head.at - from.at >= windowMs) break;
  }
  const seconds = (head.at - from.at) / 1000;
  return seconds > 0 ? (head.confirmed - from.confirmed) / seconds : 0;
}

/**
 * When the rest of `total` will be confirmed at `ratePerSecond`, counted from
 * the head's time (epoch ms); null while nothing is known (no rate, no head)
 * and the head's time once all are confirmed.
 */
export function estimatedFinish(history: ProgressHistory, total: number, ratePerSecond: number): number | null {
  const head = history.samples[history.samples.length - 1];
  if (head === undefined) return null;
  const remaining = total - head.confirmed;
  if (remaining <= 0) return head.at;
  if (!(ratePerSecond > 0)) return null;
  return Math.round(head.at + (remaining / ratePerSecond) * 1000);
}

/**
 * A stored history checked before use: positive interval, ascending times,
 * non-decreasing non-negative counts. Throws a ValidationError naming the
 * field otherwise (a store never keeps a curve it could not draw).
 */
export function checkHistory(history: ProgressHistory, field = 'history'): ProgressHistory {
  if (typeof history !== 'object' || history === null) throw new ValidationError(`${field} must be an object`);
  for (const key of Object.keys(history))
    if (key !== 'intervalMs' && key !== 'samples') throw new ValidationError(`${field}.${key} is not a known field`);
  if (!Number.isSafeInteger(history.intervalMs) || history.intervalMs <= 0)
    throw new ValidationError(`${field}.intervalMs must be a positive integer`);
  if (!Array.isArray(history.samples)) throw new ValidationError(`${field}.samples must be an array`);
  let previous: ProgressSample | undefined;
  history.samples.forEach((s, i) => {
    const name = `${field}.samples[${i}]`;
    if (typeof s !== 'object' || s === null || Object.keys(s).length !== 2)
      throw new ValidationError(`${name} must be { at, confirmed }`);
    if (!Number.isSafeInteger(s.at) || s.at < 0) throw new ValidationError(`${name}.at must be epoch ms`);
    if (!Number.isSafeInteger(s.confirmed) || s.confirmed < 0)
      throw new ValidationError(`${name}.confirmed must be a non-negative integer`);
    if (previous !== undefined && (s.at < previous.at || s.confirmed < previous.confirmed))
      throw new ValidationError(`${name} goes back in time or count`);
    previous = s;
  });
  return history;
}
