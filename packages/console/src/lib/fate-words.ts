import type { OfflineThen, RecipientFate } from '../api/fate-types';
import { fmtInt, fmtTime, offsetText } from './format';
import { reasonText } from './reasons';

/** How a time is shown; the console's local format by default, fixed in tests. */
export type TimeFormat = (epochMs: number) => string;

/**
 * A recipient's fate in the operator's words, one sentence: "Delivered online
 * at 2026-11-27 10:02:03 by executor-1", "Removed: blacklisted (global or
 * account)", "Queued offline at … by executor-2, delivered at login at …".
 * An `unknown` says why, never "not delivered".
 */
export function fateInWords(fate: RecipientFate, time: TimeFormat = fmtTime): string {
  switch (fate.fate) {
    case 'not_in_audience':
      return 'Not in the audience';
    case 'removed':
      return `Removed: ${reasonText(fate.link)}`;
    case 'delivered_online':
      return `Delivered online at ${time(fate.at)} by ${fate.executor}`;
    case 'rejected':
      return `Rejected by the push channel (${fate.reason}) at ${time(fate.at)}, sent by ${fate.executor}`;
    case 'queued_offline':
      return `Queued offline at ${time(fate.at)} by ${fate.executor}, ${offlineThenInWords(fate.then, time)}`;
    case 'not_reached':
      return `Not reached yet: ${fate.why}`;
    case 'unknown':
      return `Unknown: ${fate.reason}`;
  }
}

function offlineThenInWords(then: OfflineThen, time: TimeFormat): string {
  switch (then.outcome) {
    case 'waiting':
      return `waiting for the user to log in (until ${time(then.until)})`;
    case 'delivered_at_login':
      return `delivered at login at ${time(then.at)}`;
    case 'expired':
      return `expired at ${time(then.at)} before the user logged in`;
    case 'dropped_at_login':
      return `dropped at login at ${time(then.at)}: ${then.why === 'expired' ? 'it had expired' : 'over the frequency limit'}`;
    case 'unknown':
      return `then unknown: ${then.reason}`;
  }
}

/** Where it sits and what else the filters saw of it: "position 5,012 in the filtered list; 1 duplicate copy removed". */
export function fateNotes(fate: RecipientFate): string {
  const notes: string[] = [];
  if (fate.position !== undefined) notes.push(`position ${fmtInt(fate.position)} in the filtered list`);
  const copies = fate.duplicateCopiesRemoved;
  if (copies !== undefined) notes.push(`${fmtInt(copies)} duplicate ${copies === 1 ? 'copy' : 'copies'} removed`);
  if (fate.variant !== undefined) notes.push(`variant ${fate.variant}`);
  const group = fate.localGroup;
  if (group !== undefined)
    notes.push(
      `local-time group ${offsetText(group.offsetMinutes)}, ${group.skipped ? 'skipped' : `released at ${fmtTime(group.releaseAt)}`}`,
    );
  return notes.join('; ');
}

/** good: it reached the user; bad: it will not; pending: not yet, or not known. For the badge colour. */
export function fateTone(fate: RecipientFate): 'good' | 'bad' | 'pending' {
  if (fate.fate === 'delivered_online') return 'good';
  if (fate.fate === 'queued_offline') {
    if (fate.then.outcome === 'delivered_at_login') return 'good';
    return fate.then.outcome === 'waiting' || fate.then.outcome === 'unknown' ? 'pending' : 'bad';
  }
  if (fate.fate === 'removed' || fate.fate === 'not_in_audience' || fate.fate === 'rejected') return 'bad';
  return 'pending';
}

/** The largest uin a recipient list can hold: uins are unsigned 32-bit integers. */
export const MAX_UIN = 2 ** 32 - 1;

/**
 * Why the text typed is no uin, in the operator's words; null when it is
 * one. The server's uin space may be smaller: it answers that itself.
 */
export function uinProblem(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return 'Type a uin: the user id, a whole number such as 123456.';
  if (!/^[0-9]+$/.test(text)) return `"${text.slice(0, 24)}" is not a uin: use digits only, such as 123456.`;
  if (text.length > 1 && text.startsWith('0')) return 'A uin has no leading zeros: type it as the list holds it.';
  if (Number(text) > MAX_UIN) return `A uin is at most ${fmtInt(MAX_UIN)}.`;
  return null;
}
