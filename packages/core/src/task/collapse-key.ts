/*
 * Collapse keys (NewTask.collapseKey; docs/delivery.md, "Collapse keys"): a
 * newer task of an account supersedes the account's older ones with the same
 * key in offline lists. Pure: the check, and the scope an offline store
 * compares, which puts the account in, so one account's key never meets
 * another's.
 */
import { ValidationError } from '../errors';
import type { Task } from './model';

/** The longest collapse key, in characters (every adapter: MySQL's column is VARCHAR(128)). */
export const MAX_COLLAPSE_KEY_CHARS = 128;

/** The characters a collapse key may use: a token, as FCM's and APNs' collapse ids are in practice. */
const COLLAPSE_KEY = /^[A-Za-z0-9._:-]+$/;

/** Fails VALIDATION_FAILED naming `field` unless `value` is 1..128 characters of `[A-Za-z0-9._:-]`. */
export function checkCollapseKey(value: unknown, field = 'collapseKey'): string {
  if (typeof value !== 'string') throw new ValidationError(`${field} must be a string`, { field });
  if (value.length === 0 || value.length > MAX_COLLAPSE_KEY_CHARS)
    throw new ValidationError(`${field} must be 1..${MAX_COLLAPSE_KEY_CHARS} characters`, {
      field,
      length: value.length,
    });
  if (!COLLAPSE_KEY.test(value))
    throw new ValidationError(`${field} may use only letters, digits and . _ : -`, { field });
  return value;
}

/**
 * What an offline store groups a task's entries under: its account and its
 * collapse key, or undefined for a task without one. Account ids never hold
 * a NUL, so the pair reads back one way only.
 */
export function collapseScopeOf(task: Pick<Task, 'accountId' | 'collapseKey'>): string | undefined {
  return task.collapseKey === undefined ? undefined : `${task.accountId}\u0000${task.collapseKey}`;
}
