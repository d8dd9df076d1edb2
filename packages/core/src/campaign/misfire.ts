/*
 * The misfire policy: which of a campaign's scheduled times to fire and
 * which to record as missed, given what was handled already and the time
 * now. Pure; the controller passes its (injected) clock's `now`.
 * docs/campaigns.md, "Misfire policy", has the same rules with examples.
 *
 * A scheduled time T is due once T <= now and T lies after the campaign's
 * baseline: the last scheduled time handled (`lastScheduledAt`), or, when
 * that is older or absent, the moment the schedule took effect
 * (`activeFrom`: creation, re-enabling, or a change of cron or time zone).
 * Of the due times:
 * - the latest fires if it is late by less than the grace
 *   (now - T < graceMs); otherwise it is missed too;
 * - every earlier due time is missed (a controller that was down for three
 *   firings fires at most the last one, once, and records two misses);
 * - at most `limit` times are handled per call, oldest first; when more are
 *   due, all of the handled ones are missed and `more` says to call again
 *   (the baseline having moved to `advanceTo`), so a long outage of a
 *   frequent campaign costs bounded work per pass, and no miss goes
 *   unrecorded.
 * After the firings and misses are recorded, the baseline moves to
 * `advanceTo`, the latest time handled.
 */
import { ValidationError } from '../errors';
import { nextFireTimes, type FireSchedule, type ScheduleSpec } from './fire-times';

/** How many scheduled times one planning step handles at most. */
export const MISFIRE_BATCH = 100;

export interface MisfireInput {
  schedule: ScheduleSpec | FireSchedule;
  /** The last scheduled time handled (fired or missed); undefined before the first. */
  lastScheduledAt: number | undefined;
  /** When the current schedule took effect; times at or before it are never due. */
  activeFrom: number;
  now: number;
  /** campaigns.misfireGraceMs: how late a firing may still happen. */
  graceMs: number;
  /** Times handled per call; default MISFIRE_BATCH. */
  limit?: number;
}

export interface FiringPlan {
  /** The scheduled time to fire now, if any (the latest due time, within the grace). */
  fire: number | undefined;
  /** Due times to record as missed, ascending. */
  missed: number[];
  /** The latest time this plan handles: the new baseline once it is carried out. Undefined: nothing due. */
  advanceTo: number | undefined;
  /** More due times remain after `advanceTo`: plan again once this plan is carried out. */
  more: boolean;
}

export function planFirings(input: MisfireInput): FiringPlan {
  const { lastScheduledAt, activeFrom, now, graceMs, limit = MISFIRE_BATCH } = input;
  if (!Number.isFinite(now)) throw new ValidationError('now must be finite epoch ms', { field: 'now' });
  if (!Number.isFinite(graceMs) || graceMs < 0)
    throw new ValidationError('graceMs must be a non-negative number', { field: 'graceMs' });
  if (!Number.isInteger(limit) || limit < 1 || limit >= 1000)
    throw new ValidationError('limit must be an integer in 1..999', { field: 'limit' });
  const baseline = Math.max(lastScheduledAt ?? -Infinity, activeFrom);
  if (baseline >= now) return { fire: undefined, missed: [], advanceTo: undefined, more: false };
  const due = nextFireTimes(input.schedule, Math.max(0, baseline), limit + 1).filter((t) => t <= now);
  if (due.length === 0) return { fire: undefined, missed: [], advanceTo: undefined, more: false };
  if (due.length > limit) {
    const missed = due.slice(0, limit);
    return { fire: undefined, missed, advanceTo: missed[missed.length - 1], more: true };
  }
  const latest = due[due.length - 1]!;
  const inGrace = now - latest < graceMs;
  return {
    fire: inGrace ? latest : undefined,
    missed: inGrace ? due.slice(0, -1) : due,
    advanceTo: latest,
    more: false,
  };
}

/** The idempotency key of the task a campaign's firing creates: one task per (campaign, scheduled time). */
export function campaignTaskKey(campaignId: number, scheduledAt: number): string {
  return `campaign:${campaignId}:${scheduledAt}`;
}
