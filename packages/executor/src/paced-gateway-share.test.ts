import { ErrorCodes } from '@herald/core';
import type { Delivery, DeliveryGateway, DeliveryResult } from '@herald/core/ports';
import { PacedDeliveryGateway } from './paced-gateway';

/** A channel that accepts everything. */
class AcceptingChannel implements DeliveryGateway {
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
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
  throttleDelayMs: 20,
  latencyFloorMs: 10_000,
  latencyRiseFactor: 2,
  failureThreshold: 2,
  failureDelayMs: 1,
  openMs: 30,
};

/** One channel budget over the processes sending through it (docs/delivery.md, "One budget per channel"). */
describe('PacedDeliveryGateway: its share of the channel budget', () => {
  let gateway: PacedDeliveryGateway;
  beforeEach(() => {
    gateway = new PacedDeliveryGateway(new AcceptingChannel(), { channel: 'webhook', pacing, maxHoldMs: 1000 });
  });
  afterEach(() => gateway.close());

  it('paces to the whole budget alone, and to 1/n of it among n senders', () => {
    expect(gateway.limits()).toEqual({ channel: 'webhook', minRate: 1000, maxRate: 20_000, rate: 20_000, senders: 1 });
    gateway.shareAmong(4);
    expect(gateway.limits()).toEqual({ channel: 'webhook', minRate: 1000, maxRate: 20_000, rate: 5000, senders: 4 });
    expect(gateway.status().rate).toBe(5000);
  });

  it("takes an admin's limit as the whole channel's, and keeps sharing it", () => {
    gateway.shareAmong(2);
    expect(gateway.setLimits({ maxRate: 8000 })).toMatchObject({ maxRate: 8000, rate: 4000, senders: 2 });
    // A sender gone: the share grows back, and the rate with it (scaled: the channel keeps the rate it had).
    gateway.shareAmong(1);
    expect(gateway.limits()).toMatchObject({ maxRate: 8000, rate: 8000, senders: 1 });
  });

  it('scales the rate found with each new part, so the senders together keep it', () => {
    gateway.setLimits({ maxRate: 100_000 }); // the rate stays at 20,000 (the whole channel's)
    gateway.shareAmong(2); // each of two: half of it, not 20,000 each
    expect(gateway.limits()).toMatchObject({ maxRate: 100_000, rate: 10_000, senders: 2 });
    gateway.shareByDemand(0.75, 2); // this one's demand is 3/4 of the channel's
    expect(gateway.limits().rate).toBe(15_000);
  });

  it('refuses a bad sender count or bad limits, naming the field, and changes nothing', () => {
    expect(() => gateway.shareAmong(0)).toThrow(
      expect.objectContaining({
        code: ErrorCodes.VALIDATION_FAILED,
        details: expect.objectContaining({ field: 'senders' }),
      }),
    );
    expect(() => gateway.setLimits({ minRate: 30_000 })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'minRate' }) }),
    );
    expect(gateway.limits()).toEqual({ channel: 'webhook', minRate: 1000, maxRate: 20_000, rate: 20_000, senders: 1 });
  });
});
