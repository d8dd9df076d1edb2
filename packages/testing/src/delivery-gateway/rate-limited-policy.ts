import { TokenBucket } from '@herald/core/pacing';
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
    (request: WebhookRequest) => (request.body as { uins?: unknown[] } | undefined)?.uins,
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
    (request: ZmqPushRequest) => request.uins,
    (): ZmqPushAnswer => ({ kind: 'accept' }),
    (waitMs): ZmqPushAnswer => ({ kind: 'throttle', retryAfterMs: Math.ceil(waitMs) }),
  );
}

/** The token bucket and counts both receivers' policies share; `accept` and `throttle` say it in the receiver's terms. */
function rateLimited<Request, Answer>(
  options: RateLimitOptions,
  uinsOf: (request: Request) => unknown[] | undefined,
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
    const uins = uinsOf(request);
    const recipients = Array.isArray(uins) ? uins.length : 1;
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
