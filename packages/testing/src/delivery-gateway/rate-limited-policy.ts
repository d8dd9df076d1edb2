import { TokenBucket } from '@herald/core/pacing';
import { APNS_ERRORS, type ApnsAnswer, type ApnsRequest } from './http2-apns-server';
import { FCM_ERRORS, type FcmAnswer, type FcmRequest } from './http2-fcm-server';
import type { WebhookAnswer, WebhookPolicy, WebhookRequest } from './webhook-receiver';
import type { ZmqPushAnswer, ZmqPushPolicy, ZmqPushRequest } from './zmq-push-receiver';

export interface RateLimitOptions {
  /** Recipients per second the receiver accepts in all, whoever sends them. */
  recipientsPerSecond: number;
  /** Recipients it takes at once above the rate: this many seconds of it. Default 0.5. */
  burstSeconds?: number;
  /** The receiver's clock, ms. Default Date.now. */
  now?: () => number;
}

/** One request a rate-limited receiver answered, in its own log: when, how many recipients, and whether it throttled it. */
export interface RateLimitedAnswer {
  at: number;
  recipients: number;
  throttled: boolean;
}

/** A throttling receiver's policy and what it answered so far. */
export interface RateLimitedPolicy<Policy = WebhookPolicy> {
  policy: Policy;
  /** Requests it throttled (429, or the ZeroMQ `throttled` acknowledge). */
  readonly throttled: number;
  /** Requests it accepted. */
  readonly accepted: number;
  /** Every request it answered, in order, by the receiver's clock. */
  readonly log: readonly RateLimitedAnswer[];
}

/**
 * A push service's rate limit, as a WebhookReceiver policy (`answerBy`): it
 * accepts at most `recipientsPerSecond` recipients (the batch's `uins`),
 * counted by a token bucket over every sender, and answers a batch above it
 * 429 with Retry-After in whole seconds (RFC 9110: the least that covers the
 * wait), as FCM does. A batch is accepted or throttled whole.
 */
export function rateLimitedPolicy(options: RateLimitOptions): RateLimitedPolicy {
  return rateLimited(
    options,
    (request: WebhookRequest) => recipientsOf((request.body as { uins?: unknown[] } | undefined)?.uins),
    (): WebhookAnswer => ({ status: 200 }),
    (waitMs): WebhookAnswer => ({ status: 429, headers: { 'retry-after': String(Math.ceil(waitMs / 1000)) } }),
  );
}

/**
 * The same limit as a ZmqPushReceiver policy: a batch above it is answered
 * `throttled` with the wait in whole milliseconds (the ZeroMQ acknowledge
 * carries milliseconds, docs/delivery.md "The ZeroMQ push gateway", so the
 * service says exactly when its bucket has room again).
 */
export function zmqRateLimitedPolicy(options: RateLimitOptions): RateLimitedPolicy<ZmqPushPolicy> {
  return rateLimited(
    options,
    (request: ZmqPushRequest) => recipientsOf(request.uins),
    (): ZmqPushAnswer => ({ kind: 'accept' }),
    (waitMs): ZmqPushAnswer => ({ kind: 'throttle', retryAfterMs: Math.ceil(waitMs) }),
  );
}

/**
 * The same limit as an Http2FcmServer policy: FCM sends one message per
 * device, so each request is one recipient, and a message above the limit
 * is answered as FCM documents a project over its quota: 429
 * RESOURCE_EXHAUSTED, errorCode QUOTA_EXCEEDED, Retry-After in whole seconds.
 */
export function fcmRateLimitedPolicy(options: RateLimitOptions): RateLimitedPolicy<(request: FcmRequest) => FcmAnswer> {
  return rateLimited(
    options,
    () => 1,
    (): FcmAnswer => ({ kind: 'ok' }),
    (waitMs) => FCM_ERRORS.quotaExceeded(Math.ceil(waitMs / 1000)),
  );
}

/**
 * The same limit as an Http2ApnsServer policy: one recipient per request,
 * and a notification above the limit answered 429 TooManyRequests with no
 * Retry-After, as APNs does (Apple documents none for it): the sender
 * chooses its own wait (Herald's `pacing.throttleDelayMs`).
 */
export function apnsRateLimitedPolicy(
  options: RateLimitOptions,
): RateLimitedPolicy<(request: ApnsRequest) => ApnsAnswer> {
  return rateLimited(
    options,
    () => 1,
    (): ApnsAnswer => ({ kind: 'ok' }),
    () => APNS_ERRORS.tooManyRequests(),
  );
}

/** A batch's recipients: its uins, or 1 for a request without a list. */
function recipientsOf(uins: unknown[] | undefined): number {
  return Array.isArray(uins) ? uins.length : 1;
}

/** The token bucket and counts every receiver's policy shares; `accept` and `throttle` say it in the receiver's terms. */
function rateLimited<Request, Answer>(
  options: RateLimitOptions,
  recipientsIn: (request: Request) => number,
  accept: () => Answer,
  throttle: (waitMs: number) => Answer,
): RateLimitedPolicy<(request: Request) => Answer> {
  const now = options.now ?? Date.now;
  const bucket = new TokenBucket(
    {
      ratePerSecond: options.recipientsPerSecond,
      burst: Math.max(1, options.recipientsPerSecond * (options.burstSeconds ?? 0.5)),
    },
    now(),
  );
  const counts = { throttled: 0, accepted: 0 };
  const log: RateLimitedAnswer[] = [];
  const policy = (request: Request): Answer => {
    const recipients = recipientsIn(request);
    const at = now();
    const wait = bucket.take(recipients, at);
    log.push({ at, recipients, throttled: wait !== 0 });
    if (wait === 0) {
      counts.accepted++;
      return accept();
    }
    counts.throttled++;
    return throttle(wait);
  };
  return {
    policy,
    get throttled() {
      return counts.throttled;
    },
    get accepted() {
      return counts.accepted;
    },
    log,
  };
}

/** What a receiver's log shows after the broadcast settled: requests and throttles counted, and the send rate. */
export interface SettledSending {
  /** Requests answered from `settleMs` after the first one on. */
  requests: number;
  /** Of them, throttled. */
  throttled: number;
  /** Recipients accepted from then on, per second up to the last accepted request (NaN when none came after). */
  recipientsPerSecond: number;
}

/**
 * The send rate and throttles after the first `settleMs` of a log (the first
 * request's time is the start), as bench/channel-throttle.js measures them:
 * recipients accepted in requests from then on over the time from then to
 * the last accepted request.
 */
export function settledSending(log: readonly RateLimitedAnswer[], settleMs: number): SettledSending {
  if (log.length === 0) return { requests: 0, throttled: 0, recipientsPerSecond: Number.NaN };
  const from = log[0]!.at + settleMs;
  const after = log.filter((answer) => answer.at >= from);
  const accepted = after.filter((answer) => !answer.throttled);
  const last = Math.max(...accepted.map((answer) => answer.at));
  const seconds = (last - from) / 1000;
  const recipients = accepted.reduce((n, answer) => n + answer.recipients, 0);
  return {
    requests: after.length,
    throttled: after.length - accepted.length,
    recipientsPerSecond: seconds > 0 ? recipients / seconds : Number.NaN,
  };
}
