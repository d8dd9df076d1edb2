import type { RecipientRejection } from '@herald/core/ports';

/** The longest Retry-After honoured; a longer one is held this long (a typo in a receiver must not park a channel for days). */
export const MAX_RETRY_AFTER_MS = 3_600_000;
/** The largest answer body read for per-recipient rejections; a larger one is not parsed. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A dead-letter reason as receivers send it: a short token (it labels a metric). */
const REASON = /^[a-z0-9_.-]{1,64}$/;

/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date, in ms from
 * `now`; undefined when absent or unreadable (the caller's default applies).
 * A date already past means 0.
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000);
  // An HTTP-date has a weekday and a zone; a bare number that Date.parse would read as a year does not get here.
  if (!/^[A-Za-z]{3},/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}

/**
 * The recipients a 2xx answer refuses for good (docs/delivery.md, "Per-recipient
 * rejections"): a JSON body `{"rejected": [{"uin": <uin of the batch>, "reason": "<token>"}, ...]}`.
 * An empty body, or one without `rejected`, accepts every recipient. Returns
 * `malformed` with why when the body says something else (not JSON, not that
 * shape, a uin not in the batch, a reason that is not a token): the caller
 * then takes the batch as accepted whole and says so in the log, as a 2xx
 * accepts it.
 */
export function parseRejections(
  body: string,
  uins: Uint32Array,
): { rejected: RecipientRejection[] } | { malformed: string } {
  if (body.trim() === '') return { rejected: [] };
  if (body.length > MAX_ANSWER_BYTES) return { malformed: `answer of ${body.length} bytes, above ${MAX_ANSWER_BYTES}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { malformed: 'answer is not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { malformed: 'answer is not a JSON object' };
  const list = (parsed as { rejected?: unknown }).rejected;
  if (list === undefined) return { rejected: [] };
  if (!Array.isArray(list)) return { malformed: '"rejected" is not an array' };
  const inBatch = new Set(uins);
  const seen = new Set<number>();
  const rejected: RecipientRejection[] = [];
  for (const [i, entry] of list.entries()) {
    const { uin, reason } = (entry ?? {}) as { uin?: unknown; reason?: unknown };
    if (typeof uin !== 'number' || !inBatch.has(uin))
      return { malformed: `rejected[${i}].uin is not a uin of the batch` };
    if (typeof reason !== 'string' || !REASON.test(reason.toLowerCase()))
      return { malformed: `rejected[${i}].reason is not a token of [a-z0-9_.-], 1 to 64 characters` };
    if (seen.has(uin)) continue;
    seen.add(uin);
    rejected.push({ uin, reason: reason.toLowerCase() });
  }
  return { rejected };
}
