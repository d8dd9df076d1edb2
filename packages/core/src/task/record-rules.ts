/*
 * What a TaskStore adapter's columns accept (TaskRecordRules) and the small
 * checks every record validator shares: ids, times, counts. Pure: no I/O.
 * Failures are ValidationError (VALIDATION_FAILED).
 */
import { ValidationError } from '../errors';

/** What a store's columns accept, beyond the contract's own rules. */
export interface TaskRecordRules {
  /**
   * Epoch-ms times (`now`, sendAt, expiresAt, list createdAt): 'finite' takes
   * any finite number; 'integer' only safe integers (BIGINT columns).
   */
  readonly times: 'finite' | 'integer';
  /** The longest id, account id, owner or executor id a column holds, in code points; undefined: unbounded. */
  readonly maxIdChars?: number;
  /**
   * Whole-input shape checks: a missing NewTask or a non-object patch fails
   * VALIDATION_FAILED, and a ListMeta's count, bytes, checksum, sorted/unique
   * flags and createdAt are checked too.
   */
  readonly strictShapes: boolean;
}

/** The embedded store's rules: finite times, unbounded ids, the contract's shape checks only. */
export const DEFAULT_TASK_RECORD_RULES: TaskRecordRules = { times: 'finite', strictShapes: false };

export const isU32 = (n: unknown): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffffffff;
export const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
export const isTimeUnder =
  (rules: TaskRecordRules) =>
  (n: unknown): n is number =>
    rules.times === 'integer' ? Number.isSafeInteger(n) : typeof n === 'number' && Number.isFinite(n);

/** Fails VALIDATION_FAILED unless `value` is a string of at most `maxChars` characters (code points). */
export function checkIdString(field: string, value: unknown, nonEmpty = false, maxChars = Infinity): string {
  if (typeof value !== 'string' || (nonEmpty && value === ''))
    throw new ValidationError(`${field} must be a${nonEmpty ? ' non-empty' : ''} string`, { field });
  if (value.length > maxChars && [...value].length > maxChars) {
    throw new ValidationError(`${field} is longer than ${maxChars} characters`, { field, length: [...value].length });
  }
  return value;
}

/** checkIdString under `rules`, and only when the rules bound ids. */
export function checkIdUnder(rules: TaskRecordRules, field: string, value: unknown, nonEmpty = false): void {
  if (rules.maxIdChars !== undefined) checkIdString(field, value, nonEmpty, rules.maxIdChars);
}

/** A value that can be a stored task id: a positive safe integer. */
export function isTaskId(id: unknown): id is number {
  return Number.isSafeInteger(id) && (id as number) > 0;
}

export function checkNow(now: number, rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): void {
  if (!isTimeUnder(rules)(now)) {
    throw new ValidationError(
      `now must be ${rules.times === 'integer' ? 'an integer' : 'a finite'} number of epoch ms`,
      { now },
    );
  }
}
