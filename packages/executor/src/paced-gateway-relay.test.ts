import { ErrorCodes, HeraldError } from '@herald/core';
import type { Delivery, DeliveryGateway, DeliveryResult } from '@herald/core/ports';
import { PacedDeliveryGateway, type ChannelThrottle } from './paced-gateway';

/** A channel that answers each send with the next of `answers` (an error is thrown), then accepts; it notes when each send came. */
class ScriptedChannel implements DeliveryGateway {
  readonly sentAt: number[] = [];
  constructor(private readonly answers: (HeraldError | undefined)[] = []) {}
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
    this.sentAt.push(Date.now());
    const answer = this.answers.shift();
    if (answer !== undefined) throw answer;
    return { rejected: [] };
  }
  async close(): Promise<void> {}
}

const pacing = {
  initialRate: 20_000,
  minRate: 1000,
  maxRate: 20_000,
  increasePerSecond: 1000,
  decreaseFactor: 0.5,
  burstMs: 100,
  cutSpacingMs: 0,
  throttleDelayMs: 250,
  latencyFloorMs: 10_000,
  latencyRiseFactor: 2,
  failureThreshold: 2,
  failureDelayMs: 1,
  openMs: 30,
};

const throttled = (retryAfterMs?: number) =>
  new HeraldError(ErrorCodes.DELIVERY_THROTTLED, 'throttled, HTTP 429', {
    retriable: true,
    details: retryAfterMs === undefined ? {} : { retryAfterMs },
  });

const batch = (uins: number[]): Delivery => ({
  taskId: 1,
  uins: Uint32Array.from(uins),
  content: { body: 'x' },
  atLogin: false,
});

/** A throttle crossing processes (docs/delivery.md, "One budget per channel"): told by the one throttled, held by the others. */
describe('PacedDeliveryGateway: throttles told to and taken from the other executors', () => {
  it("tells its own throttle with the Retry-After, or throttleDelayMs without one, and not a peer's", async () => {
    const channel = new ScriptedChannel([throttled(40), throttled()]);
    const gateway = new PacedDeliveryGateway(channel, { channel: 'webhook', pacing, maxHoldMs: 5000 });
    const told: ChannelThrottle[] = [];
    gateway.onThrottled((t) => told.push(t));
    await gateway.deliver(batch([1, 2]));
    expect(told).toEqual([
      { holdMs: 40, detail: 'throttled, HTTP 429' },
      { holdMs: 250, detail: 'throttled, HTTP 429' },
    ]);
    gateway.throttledByPeer(10, 'throttled, HTTP 429', 'executor-2');
    expect(told).toHaveLength(2); // a relayed throttle is not relayed again
    await gateway.close();
  });

  it("holds for a peer's throttle: nothing goes until it ends, then the batch goes at a cut rate", async () => {
    const channel = new ScriptedChannel();
    const gateway = new PacedDeliveryGateway(channel, { channel: 'webhook', pacing, maxHoldMs: 5000 });
    const relayedAt = Date.now();
    gateway.throttledByPeer(300, 'throttled, HTTP 429', 'executor-1');
    expect(gateway.hold()).toEqual({ state: 'throttled', reason: 'throttled, HTTP 429 (relayed from executor-1)' });
    expect(gateway.status().rate).toBe(10_000);
    await gateway.deliver(batch([1]));
    expect(channel.sentAt).toHaveLength(1);
    expect(channel.sentAt[0]! - relayedAt).toBeGreaterThanOrEqual(300);
    expect(gateway.hold()).toBeUndefined();
    await gateway.close();
  });
});
