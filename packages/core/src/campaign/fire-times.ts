/*
 * When a campaign fires: the instants its cron expression matches in its
 * time zone. Pure (Intl for the zone rules, no clock: `after` is passed in).
 *
 * Daylight-saving changes (docs/campaigns.md, "Time zones and DST"): every
 * matching wall-clock time fires exactly once.
 * - Clocks go forward (a gap: 02:00-02:59 does not exist in Berlin on the
 *   last Sunday of March): a time in the gap fires at the same distance
 *   after the gap's start on the new offset, i.e. shifted later by the
 *   gap's length (02:30 fires at 03:30 CEST). Two times that land on the
 *   same instant fire once.
 * - Clocks go back (an overlap: 01:00-01:59 happens twice in New York on the
 *   first Sunday of November): a time in the overlap fires at its first
 *   occurrence only (01:30 EDT, not 01:30 EST again). A campaign firing every
 *   15 minutes therefore pauses for the repeated hour.
 * This is the "compatible" disambiguation of TC39 Temporal and of
 * java.time: a daily campaign runs once every day, never twice, never
 * skipped. node-cron differs at these two moments only (it skips times in a
 * gap, and its choice in an overlap depends on the zone's side of UTC).
 */
import { ValidationError } from '../errors';
import { parseCron, type CronSchedule } from './cron';
import { checkTimeZone, offsetAt, wallClockAt, wallClockAsUtc } from './time-zone';

/** The part of a campaign that says when it fires. */
export interface ScheduleSpec {
  readonly cron: string;
  readonly timeZone: string;
}

/** A validated ScheduleSpec: the parsed expression and the canonical zone. */
export interface FireSchedule {
  readonly cron: CronSchedule;
  readonly timeZone: string;
}

/** The most fire times one call may ask for. */
export const MAX_FIRE_TIMES = 1000;
/** Latest instant fire times are computed for: 9999-12-31T23:59:59Z. */
export const MAX_FIRE_INSTANT = 253_402_300_799_000;
/** How far ahead the search looks before concluding an expression does not fire again (node-cron looks as far). */
const SEARCH_DAYS = 366 * 100;
const DAY_MS = 86_400_000;

/** Validates both parts (ValidationError naming `cron` or `timeZone`). */
export function compileSchedule(spec: ScheduleSpec): FireSchedule {
  if (spec === null || typeof spec !== 'object')
    throw new ValidationError('a schedule needs cron and timeZone', { field: 'cron' });
  return { cron: parseCron(spec.cron), timeZone: checkTimeZone(spec.timeZone) };
}

/**
 * The first `n` fire times strictly after `after` (epoch ms), ascending, in
 * epoch ms (whole seconds). Fewer than `n` only when the expression does not
 * fire again within a hundred years or before year 10000.
 */
export function nextFireTimes(spec: ScheduleSpec | FireSchedule, after: number, n: number): number[] {
  const schedule = typeof spec.cron === 'string' ? compileSchedule(spec as ScheduleSpec) : (spec as FireSchedule);
  if (typeof after !== 'number' || !Number.isFinite(after) || after < 0 || after > MAX_FIRE_INSTANT) {
    throw new ValidationError(`after must be epoch ms in 0..${MAX_FIRE_INSTANT}`, { field: 'after' });
  }
  if (!Number.isInteger(n) || n < 0 || n > MAX_FIRE_TIMES)
    throw new ValidationError(`n must be an integer in 0..${MAX_FIRE_TIMES}`, { field: 'n' });
  if (n === 0) return [];
  return search(schedule, after, n);
}

function search({ cron, timeZone }: FireSchedule, after: number, n: number): number[] {
  const months = mask(cron.month, 13);
  const days = mask(cron.dayOfMonth, 32);
  const weekdays = mask(cron.dayOfWeek, 7);
  const found: number[] = [];
  // The n smallest instants seen so far (sorted, distinct); candidates come in wall-clock order,
  // which is instant order except around a gap, so each one is inserted in place.
  const keep = (t: number) => {
    let i = found.length;
    while (i > 0 && found[i - 1]! > t) i--;
    if (found[i - 1] === t) return;
    found.splice(i, 0, t);
    if (found.length > n) found.pop();
  };
  const full = () => found.length === n;
  // Start a day early: a time of the previous local day can still lie after `after` near a DST change.
  const startDay = Math.floor(wallClockAsUtc(wallClockAt(timeZone, after)) / DAY_MS) - 1;
  for (let day = startDay; day <= startDay + SEARCH_DAYS; day++) {
    const dayUtc = day * DAY_MS;
    if (dayUtc > MAX_FIRE_INSTANT) break;
    const date = new Date(dayUtc);
    if (!months[date.getUTCMonth() + 1] || !days[date.getUTCDate()] || !weekdays[date.getUTCDay()]) continue;
    // The offsets in force a day before and two days after bracket any change on this day.
    const before = offsetAt(timeZone, Math.max(0, dayUtc - DAY_MS));
    const later = offsetAt(timeZone, Math.min(MAX_FIRE_INSTANT, dayUtc + 2 * DAY_MS));
    const maxOffset = Math.max(before, later);
    const minOffset = Math.min(before, later);
    // A wall-clock time L falls at an instant in [L - maxOffset, L - minOffset]: times with
    // L - minOffset <= after cannot come after `after`, and once L - maxOffset passes the n-th
    // instant found no later time can be among the first n.
    if (full() && dayUtc - maxOffset > found[n - 1]!) break;
    const lowest = after + minOffset - dayUtc;
    for (const hour of cron.hour) {
      if ((hour * 3600 + 3599) * 1000 <= lowest) continue;
      for (const minute of cron.minute) {
        if ((hour * 3600 + minute * 60 + 59) * 1000 <= lowest) continue;
        for (const second of cron.second) {
          const offsetInDay = (hour * 3600 + minute * 60 + second) * 1000;
          if (offsetInDay <= lowest) continue;
          const local = dayUtc + offsetInDay;
          if (full() && local - maxOffset > found[n - 1]!) return found;
          const instant = resolve(timeZone, local, before, later);
          if (instant > after && instant <= MAX_FIRE_INSTANT) keep(instant);
        }
      }
    }
  }
  return found;
}

/**
 * The instant of a wall-clock time `local` (epoch ms of the fields read as
 * UTC) in a zone checked by checkTimeZone, with the firings' DST rules: in an
 * overlap the first occurrence, in a gap the time shifted later by the gap.
 */
export function instantOfWallClock(timeZone: string, local: number): number {
  const before = offsetAt(timeZone, Math.max(0, local - DAY_MS));
  const later = offsetAt(timeZone, Math.min(MAX_FIRE_INSTANT, local + DAY_MS));
  return resolve(timeZone, local, before, later);
}

/**
 * The instant of wall-clock time `local` (read as UTC) given the offsets
 * before and after a possible change: the only valid one; in an overlap the
 * earlier; in a gap the one on the offset before the gap (the time shifted
 * later by the gap's length).
 */
function resolve(timeZone: string, local: number, before: number, later: number): number {
  if (before === later) return local - before;
  const onBefore = local - before;
  const onLater = local - later;
  const beforeValid = offsetAt(timeZone, onBefore) === before;
  const laterValid = offsetAt(timeZone, onLater) === later;
  if (beforeValid && laterValid) return Math.min(onBefore, onLater);
  if (laterValid) return onLater;
  return onBefore;
}

function mask(values: readonly number[], size: number): boolean[] {
  const out = new Array<boolean>(size).fill(false);
  for (const v of values) out[v] = true;
  return out;
}
