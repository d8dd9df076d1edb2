import { ValidationError } from '../errors';

/**
 * Why a queued task is not running yet, as its owning scheduler saw it last:
 * every sender slot taken, by which tasks (the first few).
 */
export interface WaitingReason {
  reason: 'sender_slots';
  /** The scheduler's slots (scheduler.slots). */
  slots: number;
  /** How many of them are taken. */
  inUse: number;
  /** Ids of tasks holding them, ascending, at most MAX_HOLDERS_NAMED. */
  heldBy: number[];
  /** Tasks ahead of this one in the ready queue. */
  ahead: number;
  /** Epoch ms: when the scheduler saw it so. */
  since: number;
}

export const MAX_HOLDERS_NAMED = 8;

/** The reason in words, e.g. "waiting for a sender slot: 4 of 4 in use by tasks 12, 15, …". */
export function describeWaiting(w: WaitingReason): string {
  const more = w.inUse > w.heldBy.length ? ', …' : '';
  const by = w.heldBy.length === 0 ? '' : ` by task${w.inUse === 1 ? '' : 's'} ${w.heldBy.join(', ')}${more}`;
  const queue = w.ahead > 0 ? `; ${w.ahead} ahead in the queue` : '';
  return `waiting for a sender slot: ${w.inUse} of ${w.slots} in use${by}${queue}`;
}

/** Whether two reasons say the same (apart from `since`): a scheduler rewrites only a changed one. */
export function sameWaiting(a: WaitingReason | null, b: WaitingReason | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.slots === b.slots &&
    a.inUse === b.inUse &&
    a.ahead === b.ahead &&
    a.heldBy.length === b.heldBy.length &&
    a.heldBy.every((id, i) => id === b.heldBy[i])
  );
}

/** A stored reason checked before use; a ValidationError names the field. */
export function checkWaiting(w: WaitingReason | null, field = 'waiting'): WaitingReason | null {
  if (w === null) return null;
  if (typeof w !== 'object') throw new ValidationError(`${field} must be an object or null`);
  const known = ['reason', 'slots', 'inUse', 'heldBy', 'ahead', 'since'];
  for (const key of Object.keys(w))
    if (!known.includes(key)) throw new ValidationError(`${field}.${key} is not a known field`);
  if (w.reason !== 'sender_slots') throw new ValidationError(`${field}.reason must be 'sender_slots'`);
  for (const key of ['slots', 'inUse', 'ahead', 'since'] as const)
    if (!Number.isSafeInteger(w[key]) || w[key] < 0)
      throw new ValidationError(`${field}.${key} must be a non-negative integer`);
  if (
    !Array.isArray(w.heldBy) ||
    w.heldBy.length > MAX_HOLDERS_NAMED ||
    !w.heldBy.every((id) => Number.isSafeInteger(id) && id > 0)
  )
    throw new ValidationError(`${field}.heldBy must be at most ${MAX_HOLDERS_NAMED} task ids`);
  return w;
}
