import { TokenBucket } from '@herald/core/pacing';
import type { WebhookAnswer, WebhookPolicy, WebhookRequest } from './webhook-receiver';

export interface RateLimitOptions {
  /** Recipients per second the receiver accepts in all, whoever sends them. */
  recipientsPerSecond: number;
  /** Recipients it takes at once above the rate: this many seconds of it. Default 0.5. */
  burstSeconds?: number;
  /** The receiver's clock, ms. Default Date.now. */
  now?: () => number;
}

/** A throttling receiver's policy and what it answered so far. */
export interface RateLimitedPolicy {
  policy: WebhookPolicy;
  /** Requests it answered 429. */
  readonly throttled: number;
  /** Requests it accepted. */
  readonly accepted: number;
}

/**
 * A push service's rate limit, as a WebhookReceiver policy (`answerBy`): it
 * accepts at most `recipientsPerSecond` recipients (the batch's `uins`),
 * counted by a token bucket over every sender, and answers a batch above it
 * 429 with Retry-After in whole seconds (RFC 9110: the least that covers the
 * wait), as FCM does. A batch is accepted or throttled whole.
 */
export function rateLimitedPolicy(options: RateLimitOptions): RateLimitedPolicy {
  const now = options.now ?? Date.now;
  const bucket = new TokenBucket(
    {
      ratePerSecond: options.recipientsPerSecond,
      burst: Math.max(1, options.recipientsPerSecond * (options.burstSeconds ?? 0.5)),
    },
    now(),
  );
  const counts = { throttled: 0, accepted: 0 };
  const policy = (request: WebhookRequest): WebhookAnswer => {
    const uins = (request.body as { uins?: unknown[] } | undefined)?.uins;
    const wait = bucket.take(Array.isArray(uins) ? uins.length : 1, now());
    if (wait === 0) {
      counts.accepted++;
      return { status: 200 };
    }
    counts.throttled++;
    return { status: 429, headers: { 'retry-after': String(Math.ceil(wait / 1000)) } };
  };
  return {
    policy,
    get throttled() {
      return counts.throttled;
    },
    get accepted() {
      return counts.accepted;
    },
  };
}
