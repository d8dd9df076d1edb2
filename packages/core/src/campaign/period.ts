/*
 * How often a campaign fires, and so how many people it reaches a day
 * (docs/campaigns.md, "Period and reach"): a campaign whose cron fires every
 * second is one typo away from `0 * * * *`, and it sends its whole list each
 * time. Pure: the instants come from nextFireTimes, `from` is passed in.
 */
import { ValidationError } from '../errors';
import {
  compileSchedule,
  MAX_FIRE_INSTANT,
  MAX_FIRE_TIMES,
  nextFireTimes,
  type FireSchedule,
  type ScheduleSpec,
} from './fire-times';

const DAY_MS = 86_400_000;
/** The span the daily projection averages over: a week, so weekday-only and weekly crons count fairly. */
const PROJECTION_DAYS = 7;

/** The closest two consecutive firings come, over the next MAX_FIRE_TIMES firings after `from`. */
export interface SmallestGap {
  readonly gapMs: number;
  /** The later firing of the two, epoch ms. */
  readonly at: number;
}

/**
 * The smallest gap between consecutive firings among the next MAX_FIRE_TIMES
 * after `from` (undefined: fewer than two firings). A thousand firings cover
 * at least 41 days of an hourly cron, so daily and weekly patterns (and the
 * gap from the last firing of one day to the first of the next) are seen.
 */
export function smallestGap(spec: ScheduleSpec | FireSchedule, from: number): SmallestGap | undefined {
  const times = nextFireTimes(spec, clampInstant(from), MAX_FIRE_TIMES);
  let smallest: SmallestGap | undefined;
  for (let i = 1; i < times.length; i++) {
    const gapMs = times[i]! - times[i - 1]!;
    if (smallest === undefined || gapMs < smallest.gapMs) smallest = { gapMs, at: times[i]! };
  }
  return smallest;
}

/**
 * Refuses (ValidationError naming `cron`, with the smallest gap found) a
 * schedule that fires closer together than `minPeriodMs`
 * (`campaigns.minPeriodMs`) anywhere in its next firings.
 */
export function checkCampaignPeriod(spec: ScheduleSpec, minPeriodMs: number, from: number): FireSchedule {
  const schedule = compileSchedule(spec);
  const gap = smallestGap(schedule, from);
  if (gap !== undefined && gap.gapMs < minPeriodMs) {
    throw new ValidationError(
      `cron '${spec.cron}' fires ${describeMs(gap.gapMs)} apart (at ${new Date(gap.at).toISOString()}): campaigns fire at most every ${describeMs(minPeriodMs)} (campaigns.minPeriodMs)`,
      { field: 'cron', smallestGapMs: gap.gapMs, minPeriodMs },
    );
  }
  return schedule;
}

/** What a campaign reaches a day, as the console shows it before it is enabled. */
export interface ProjectedDailyReach {
  /** Firings per day, averaged over the next seven days (5/7 for a weekday-only daily cron). */
  readonly firingsPerDay: number;
  /** The template list's recipients (before the filter chain); null when the list is gone. */
  readonly recipientsPerFiring: number | null;
  /** firingsPerDay x recipientsPerFiring, rounded; null with no list. */
  readonly recipientsPerDay: number | null;
}

/**
 * The projection from `from` (now, or when the schedule takes effect): the
 * firings in the next seven days, divided by seven. When the next
 * MAX_FIRE_TIMES firings end within the week (a cron of less than ten
 * minutes, allowed by a small campaigns.minPeriodMs), their own span gives
 * the rate instead.
 */
export function projectedDailyReach(
  spec: ScheduleSpec | FireSchedule,
  from: number,
  recipientsPerFiring: number | null,
): ProjectedDailyReach {
  const start = clampInstant(from);
  const times = nextFireTimes(spec, start, MAX_FIRE_TIMES);
  const end = start + PROJECTION_DAYS * DAY_MS;
  const inWeek = times.filter((t) => t <= end).length;
  const capped = inWeek === MAX_FIRE_TIMES && times[times.length - 1]! < end;
  const raw = capped ? (MAX_FIRE_TIMES * DAY_MS) / (times[times.length - 1]! - start) : inWeek / PROJECTION_DAYS;
  const firingsPerDay = Math.round(raw * 1000) / 1000;
  return {
    firingsPerDay,
    recipientsPerFiring,
    recipientsPerDay: recipientsPerFiring === null ? null : Math.round(raw * recipientsPerFiring),
  };
}

function clampInstant(at: number): number {
  return Math.min(Math.max(0, at), MAX_FIRE_INSTANT);
}

/** "1 second", "5 minutes", "60 minutes", "1500 ms": a gap as a person reads it. */
function describeMs(ms: number): string {
  for (const [size, name] of [
    [60_000, 'minute'],
    [1000, 'second'],
  ] as const) {
    const n = ms / size;
    if (Number.isInteger(n) && n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return `${ms} ms`;
}
