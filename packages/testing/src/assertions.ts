import { isHeraldError, type ErrorCode, type HeraldError } from '@herald/core';

/**
 * Awaits `promise`, expects it to reject with a HeraldError of this `code`
 * (callers branch on codes, never on messages), and returns the error for
 * further checks.
 */
export async function rejectsWithCode(promise: Promise<unknown>, code: ErrorCode): Promise<HeraldError> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await promise };
  } catch (error) {
    outcome = { ok: false, error };
  }
  if (outcome.ok)
    throw new Error(`expected a rejection with code ${code}, but it resolved to ${JSON.stringify(outcome.value)}`);
  const { error } = outcome;
  if (!isHeraldError(error)) {
    throw new Error(`expected a HeraldError with code ${code}, got ${String(error)}`, { cause: error });
  }
  expect(error.code).toBe(code);
  return error;
}
