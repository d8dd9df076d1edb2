import type { ProjectedDailyReach } from '../api/types';

/** The parts of an ApiError read here (not the class: this file stays free of the browser-only client). */
export interface FieldRefusal {
  message: string;
  details: Record<string, unknown>;
}

const DAY_MS = 86_400_000;

/**
 * Firings a day read off a schedule's next fire times (the preview gives
 * five), for the new-campaign form before the server has a campaign to
 * project: five inside a day extrapolate to the day (every minute: 1,440),
 * a sparser schedule counts those in the first 24 h (weekdays at 9: 1). An
 * estimate: the saved campaign shows the server's projection.
 */
export function firingsPerDayOf(times: readonly string[]): number {
  const at = times.map((t) => Date.parse(t)).filter((t) => Number.isFinite(t));
  if (at.length === 0) return 0;
  const span = at[at.length - 1] - at[0];
  if (at.length > 1 && span < DAY_MS) return Math.round((DAY_MS / span) * (at.length - 1));
  return at.filter((t) => t < at[0] + DAY_MS).length;
}

export function estimateReach(times: readonly string[], recipientsPerFiring: number): ProjectedDailyReach {
  const firingsPerDay = firingsPerDayOf(times);
  return { firingsPerDay, recipientsPerFiring, recipientsPerDay: firingsPerDay * recipientsPerFiring };
}

/**
 * A refusal of the cron field, in the operator's words when it is the
 * "fires too often" guard (campaigns.minPeriodMs): the server's message
 * names the config key, the operator needs the rule and a way out.
 * Any other refusal (a syntax error) keeps the server's message, which
 * already points at the part that is wrong.
 */
export function cronRefusalText(error: FieldRefusal): string {
  // The server's details: { field: 'cron', smallestGapMs, minPeriodMs }.
  const minPeriodMs = Number(error.details.minPeriodMs);
  const gapMs = Number(error.details.smallestGapMs);
  if (!(minPeriodMs > 0)) return error.message;
  const gap = gapMs > 0 ? ` (${apart(gapMs)} apart at its closest)` : '';
  return `This schedule fires too often${gap}: a campaign may fire at most ${everyPeriod(minPeriodMs)}. Choose a slower schedule, e.g. 0 * * * * for every hour on the hour.`;
}

const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** "once an hour", "once every 2 hours", "once every 30 minutes". */
function everyPeriod(ms: number): string {
  for (const [size, name] of UNITS) {
    if (ms % size !== 0) continue;
    const n = ms / size;
    return n === 1 ? `once ${name === 'hour' ? 'an' : 'a'} ${name}` : `once every ${n} ${name}s`;
  }
  return `once every ${ms} ms`;
}

/** "5 minutes", "1 second", "1500 ms". */
function apart(ms: number): string {
  for (const [size, name] of UNITS) {
    if (ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}
