/**
 * The delivery rate of one task, from the progress curve its owning
 * scheduler recorded (GET /api/v1/tasks/:id/progress): each sample is (time,
 * recipients confirmed). The chart shows the rate smoothed over a few
 * seconds; the ETA uses the server's current rate.
 */
export interface RateSample {
  at: number;
  confirmed: number;
}

export interface RatePoint {
  at: number;
  perSecond: number;
}

/** What the chart says when it has no curve to draw. */
export function emptyChartText(progress: { recorded: boolean } | undefined, ended: boolean): string {
  if (progress === undefined) return 'loading…';
  if (!progress.recorded) return ended ? 'no progress was recorded for this task' : 'no progress yet';
  return ended ? 'too short to draw' : 'collecting samples…';
}

/** Milliseconds until `remaining` recipients are confirmed at `perSecond`, or null when it cannot be told. */
export function eta(remaining: number, perSecond: number | null): number | null {
  if (remaining <= 0) return 0;
  if (perSecond === null || perSecond <= 0) return null;
  return (remaining / perSecond) * 1000;
}

/**
 * The rate curve of a task's recorded progress (GET /api/v1/tasks/:id/progress),
 * smoothed: at each sample, the recipients confirmed over the `windowMs`
 * before it (the cumulative curve read between samples as a straight line),
 * per second. A paced task confirming a batch at a time steps its count;
 * averaged over a few seconds it draws its pace instead of swinging between 0
 * and a batch's peak. The window is at least twice the curve's spacing, so a
 * long task's thinned curve still averages over more than one step. The first
 * point carries the first interval's rate, so a two-sample curve draws a line.
 */
export function smoothedRatePoints(samples: readonly RateSample[], windowMs = 5_000, intervalMs = 0): RatePoint[] {
  if (samples.length < 2) return [];
  const window = Math.max(windowMs, 2 * intervalMs);
  const t0 = samples[0]!.at;
  const points: RatePoint[] = [];
  for (let i = 1; i < samples.length; i++) {
    const b = samples[i]!;
    const from = Math.max(t0, b.at - window);
    const span = b.at - from;
    points.push({ at: b.at, perSecond: span > 0 ? ((b.confirmed - confirmedAt(samples, from)) * 1000) / span : 0 });
  }
  return [{ at: t0, perSecond: points[0]!.perSecond }, ...points];
}

/** The cumulative count at `at`, read between the samples around it as a straight line. */
function confirmedAt(samples: readonly RateSample[], at: number): number {
  let lo = 0;
  let hi = samples.length - 1;
  if (at <= samples[0]!.at) return samples[0]!.confirmed;
  if (at >= samples[hi]!.at) return samples[hi]!.confirmed;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]!.at <= at) lo = mid;
    else hi = mid;
  }
  const a = samples[lo]!;
  const b = samples[hi]!;
  return a.confirmed + ((b.confirmed - a.confirmed) * (at - a.at)) / (b.at - a.at);
}
