import { parseRetryAfter } from '../webhook-answer';
import type { DeviceOutcome } from './fan-out';
import type { Http2Answer } from './http2-origin';

/** APNs' `reason`s that mean the token will never work again: the device leaves the registry. */
const DEAD_REASONS: Record<string, string> = {
  BadDeviceToken: 'bad_device_token',
  Unregistered: 'unregistered',
  ExpiredToken: 'unregistered',
  DeviceTokenNotForTopic: 'device_token_not_for_topic',
};

/** The `reason` of an APNs error body `{"reason": "...", "timestamp"?: ...}`; undefined when the body is not that. */
export function readApnsReason(body: string): string | undefined {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown } | null)?.reason;
    return typeof reason === 'string' ? reason.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One APNs answer as an outcome (docs/delivery.md, "APNs"), after Apple's
 * documented status codes and reasons:
 * - 200: accepted;
 * - 410 (Unregistered, ExpiredToken), 400 BadDeviceToken or
 *   DeviceTokenNotForTopic: the token is dead;
 * - 429 (TooManyRequests): throttled, with Retry-After when given;
 * - 403 (a provider token APNs refused: expired, invalid, wrong team), 500,
 *   503 and other 5xx: failed;
 * - any other 4xx (PayloadTooLarge, BadCollapseId, BadTopic, ...): the
 *   message is refused.
 */
export function apnsOutcome(answer: Http2Answer, now: number): DeviceOutcome {
  const { status } = answer;
  if (status === 200) return { kind: 'accepted' };
  const reason = readApnsReason(answer.body);
  const said = `HTTP ${status}${reason ? ` ${reason}` : ''}`;
  const dead = reason === undefined ? undefined : DEAD_REASONS[reason];
  if (status === 410) return { kind: 'dead', reason: dead ?? 'unregistered' };
  if (status === 400 && dead !== undefined) return { kind: 'dead', reason: dead };
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] ?? null, now);
    return { kind: 'throttled', ...(retryAfterMs === undefined ? {} : { retryAfterMs }), said };
  }
  if (status === 403 || status >= 500) return { kind: 'failed', said };
  return { kind: 'refused', said };
}
