/*
 * The values of a firing's variables (core template/firing.ts): its scheduled
 * time on the campaign's wall clock, and an id no other firing has.
 */
import type { FiringValues } from '../template/firing';
import { wallClockAt } from './time-zone';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `firing.date` YYYY-MM-DD and `firing.time` HH:MM, the scheduled time in the
 * campaign's zone (a daily 09:00 Berlin campaign: `09:00`, summer or winter);
 * `firing.id` `<campaign id>-<scheduled epoch ms>`.
 */
export function firingValues(campaignId: number, scheduledAt: number, timeZone: string): FiringValues {
  const wall = wallClockAt(timeZone, scheduledAt);
  return {
    'firing.date': `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`,
    'firing.time': `${pad(wall.hour)}:${pad(wall.minute)}`,
    'firing.id': `${campaignId}-${scheduledAt}`,
  };
}
