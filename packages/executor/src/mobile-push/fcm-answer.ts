import { parseRetryAfter } from '../webhook-answer';
import type { DeviceOutcome } from './fan-out';
import type { Http2Answer } from './http2-origin';

/** The parts of FCM's error body (google.rpc.Status) Herald reads. */
interface FcmErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: { '@type'?: string; errorCode?: string; fieldViolations?: { field?: string; description?: string }[] }[];
}

/** FCM's per-message error, read from its documented body; empty fields when the body is not that shape. */
export function readFcmError(body: string): { errorCode?: string; message?: string; badToken: boolean } {
  let error: FcmErrorBody | undefined;
  try {
    error = (JSON.parse(body) as { error?: FcmErrorBody }).error;
  } catch {
    return { badToken: false };
  }
  if (error === null || typeof error !== 'object') return { badToken: false };
  const details = Array.isArray(error.details) ? error.details : [];
  const fcm = details.find((d) => d?.['@type'] === 'type.googleapis.com/google.firebase.fcm.v1.FcmError');
  const violations = details.flatMap((d) => (Array.isArray(d?.fieldViolations) ? d.fieldViolations : []));
  return {
    ...(typeof fcm?.errorCode === 'string' ? { errorCode: fcm.errorCode } : {}),
    ...(typeof error.message === 'string' ? { message: error.message.slice(0, 200) } : {}),
    badToken: violations.some((v) => v?.field === 'message.token'),
  };
}

/**
 * One FCM HTTP v1 answer as an outcome (docs/delivery.md, "FCM"), after
 * Google's documented error codes:
 * - 200: accepted;
 * - 404 or 400 with errorCode UNREGISTERED, or 400 INVALID_ARGUMENT naming message.token: the
 *   token is dead (`unregistered`, `invalid_token`); 403 SENDER_ID_MISMATCH:
 *   the token belongs to another project (`sender_id_mismatch`);
 * - 429 (QUOTA_EXCEEDED), or 503 with a Retry-After: throttled;
 * - 401 (the access token), 403 otherwise (the service account may not
 *   send), 500, 503 without Retry-After, other 5xx: failed;
 * - any other 400 or status: the message is refused (its payload).
 */
export function fcmOutcome(answer: Http2Answer, now: number): DeviceOutcome {
  const { status } = answer;
  if (status === 200) return { kind: 'accepted' };
  const error = readFcmError(answer.body);
  const said = `HTTP ${status}${error.errorCode ? ` ${error.errorCode}` : ''}${error.message ? `: ${error.message}` : ''}`;
  // Only FCM's own UNREGISTERED: a bare 404 is a wrong project or path, and must not empty the registry.
  if (error.errorCode === 'UNREGISTERED') return { kind: 'dead', reason: 'unregistered' };
  if (status === 400 && error.badToken) return { kind: 'dead', reason: 'invalid_token' };
  if (status === 403 && error.errorCode === 'SENDER_ID_MISMATCH') return { kind: 'dead', reason: 'sender_id_mismatch' };
  const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] ?? null, now);
  if (status === 429 || (status === 503 && retryAfterMs !== undefined))
    return { kind: 'throttled', ...(retryAfterMs === undefined ? {} : { retryAfterMs }), said };
  if (status === 401 || status === 403 || status === 404 || status >= 500) return { kind: 'failed', said };
  return { kind: 'refused', said };
}
