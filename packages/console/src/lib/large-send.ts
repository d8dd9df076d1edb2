import type { ConfirmationRequired } from '../api/types';

/**
 * The "no accidental broadcast" guard as the console sees it: a create the
 * server refused until the operator confirms the audience size, and the
 * operator's typed answer.
 */

/** The size to confirm when `error` is the server's 409 CONFIRMATION_REQUIRED; null for any other failure. */
export function confirmationOf(error: unknown): ConfirmationRequired | null {
  // Read by shape, not instanceof ApiError: this file stays free of the browser-only client (the unit tests run in node).
  const refusal = error as { code?: unknown; details?: Record<string, unknown> } | null;
  if (typeof refusal !== 'object' || refusal === null || refusal.code !== 'CONFIRMATION_REQUIRED' || !refusal.details)
    return null;
  const recipients = Number(refusal.details.recipients);
  const threshold = Number(refusal.details.threshold);
  if (!Number.isSafeInteger(recipients)) return null;
  return { recipients, threshold: Number.isFinite(threshold) ? threshold : 0 };
}

/**
 * True when what the operator typed is the recipient count: separators
 * (commas, dots, spaces, apostrophes) are allowed, so "9,873,201" and
 * "9873201" both match, but not a near miss or a rounded figure.
 */
export function typedCountMatches(typed: string, recipients: number): boolean {
  const digits = typed.replace(/[\s,.'\u00a0\u202f_]/g, '');
  return /^\d+$/.test(digits) && Number(digits) === recipients;
}
