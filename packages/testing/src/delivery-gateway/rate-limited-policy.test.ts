import type { ApnsRequest } from './http2-apns-server';
import type { FcmRequest } from './http2-fcm-server';
import {
  apnsRateLimitedPolicy,
  fcmRateLimitedPolicy,
  rateLimitedPolicy,
  settledSending,
  zmqRateLimitedPolicy,
} from './rate-limited-policy';
import type { WebhookRequest } from './webhook-receiver';
import type { ZmqPushRequest } from './zmq-push-receiver';

const batch = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
const zmqRequest = (count: number) => ({ uins: batch(count) }) as ZmqPushRequest;
const webhookRequest = (count: number) => ({ body: { uins: batch(count) } }) as unknown as WebhookRequest;

describe('rate-limited receiver policies', () => {
  it('throttle a ZeroMQ batch above the limit with the exact wait in ms, and log every answer', () => {
    let now = 0;
    const limit = zmqRateLimitedPolicy({ recipientsPerSecond: 1000, burstSeconds: 0.5, now: () => now });
    expect(limit.policy(zmqRequest(500))).toEqual({ kind: 'accept' });
    // The bucket is empty: 300 recipients more need 300 ms of the rate.
    expect(limit.policy(zmqRequest(300))).toEqual({ kind: 'throttle', retryAfterMs: 300 });
    now = 300;
    expect(limit.policy(zmqRequest(300))).toEqual({ kind: 'accept' });
    expect([limit.accepted, limit.throttled]).toEqual([2, 1]);
    expect(limit.log).toEqual([
      { at: 0, recipients: 500, throttled: false },
      { at: 0, recipients: 300, throttled: true },
      { at: 300, recipients: 300, throttled: false },
    ]);
  });

  it('throttle a webhook batch with a Retry-After in whole seconds', () => {
    const limit = rateLimitedPolicy({ recipientsPerSecond: 1000, burstSeconds: 0.5, now: () => 0 });
    expect(limit.policy(webhookRequest(500))).toEqual({ status: 200 });
    expect(limit.policy(webhookRequest(300))).toEqual({ status: 429, headers: { 'retry-after': '1' } });
  });

  it('count each FCM message as one recipient and throttle above the limit as FCM does: 429 QUOTA_EXCEEDED', () => {
    let now = 0;
    const limit = fcmRateLimitedPolicy({ recipientsPerSecond: 4, burstSeconds: 0.5, now: () => now });
    const message = {} as FcmRequest;
    expect([limit.policy(message), limit.policy(message)]).toEqual([{ kind: 'ok' }, { kind: 'ok' }]);
    // Two recipients of burst spent: the third waits 250 ms, said in whole seconds.
    expect(limit.policy(message)).toEqual({ kind: 'error', status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfter: '1' });
    now = 250;
    expect(limit.policy(message)).toEqual({ kind: 'ok' });
    expect(limit.log.map((a) => a.recipients)).toEqual([1, 1, 1, 1]);
  });

  it('throttle an APNs notification above the limit 429 TooManyRequests, without a Retry-After', () => {
    const limit = apnsRateLimitedPolicy({ recipientsPerSecond: 2, burstSeconds: 0.5, now: () => 0 });
    const notification = {} as ApnsRequest;
    expect(limit.policy(notification)).toEqual({ kind: 'ok' });
    expect(limit.policy(notification)).toEqual({ kind: 'error', status: 429, reason: 'TooManyRequests' });
    expect([limit.accepted, limit.throttled]).toEqual([1, 1]);
  });

  it('measure the send rate and throttles after the settling time, up to the last accepted request', () => {
    const log = [
      { at: 1000, recipients: 900, throttled: false },
      { at: 1500, recipients: 100, throttled: false }, // before the settling time ends: left out
      { at: 2000, recipients: 500, throttled: true },
      { at: 2500, recipients: 500, throttled: false },
      { at: 3000, recipients: 500, throttled: false },
      { at: 3500, recipients: 500, throttled: true }, // after the last accepted one: counted, no time
    ];
    expect(settledSending(log, 1000)).toEqual({ requests: 4, throttled: 2, recipientsPerSecond: 1000 });
    expect(settledSending([], 1000).requests).toBe(0);
    expect(settledSending(log.slice(0, 2), 1000).recipientsPerSecond).toBeNaN();
  });
});
