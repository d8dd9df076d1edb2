import { ChannelPacing } from './channel-pacing';
import { demandFraction, fractionOfChannel, liveSenders, shareOfChannel } from './channel-share';

describe('shareOfChannel', () => {
  it('gives one sender the whole budget', () => {
    expect(shareOfChannel({ minRate: 100, maxRate: 20_000 }, 1)).toEqual({ minRate: 100, maxRate: 20_000 });
  });

  it('splits both bounds evenly, so the senders together stay within the limit', () => {
    const share = shareOfChannel({ minRate: 90, maxRate: 20_000 }, 3);
    expect(share.minRate).toBeCloseTo(30);
    expect(share.maxRate * 3).toBeCloseTo(20_000);
  });

  it.each([
    [0, 'channel senders must be a whole number, at least 1 (got 0)'],
    [1.5, 'channel senders must be a whole number, at least 1 (got 1.5)'],
    [Number.NaN, 'channel senders must be a whole number, at least 1 (got NaN)'],
  ])('refuses %p senders, naming the field', (senders, message) => {
    expect(() => shareOfChannel({ minRate: 1, maxRate: 10 }, senders)).toThrow(
      expect.objectContaining({ message, details: expect.objectContaining({ field: 'senders' }) }),
    );
  });

  it('refuses limits out of order, naming minRate', () => {
    expect(() => shareOfChannel({ minRate: 50, maxRate: 10 }, 2)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'minRate' }) }),
    );
  });

  it("moves a pacing's rate into its share at once: a second sender halves a rate at the limit", () => {
    const pacing = new ChannelPacing(
      {
        initialRate: 10_000,
        minRate: 100,
        maxRate: 10_000,
        increasePerSecond: 1000,
        decreaseFactor: 0.5,
        burstMs: 0,
        cutSpacingMs: 0,
        throttleDelayMs: 1000,
        latencyFloorMs: 1000,
        latencyRiseFactor: 3,
        failureThreshold: 3,
        failureDelayMs: 100,
        openMs: 1000,
      },
      0,
    );
    pacing.setLimits(shareOfChannel({ minRate: 100, maxRate: 10_000 }, 2));
    expect(pacing.rate).toBe(5000);
    // AIMD goes on within the share: a long acceptance raises it no higher.
    pacing.accepted(1, 60_000);
    expect(pacing.rate).toBe(5000);
  });
});

describe('liveSenders', () => {
  const executors = ['executor-1', 'executor-2', 'executor-3'];

  it('counts the named members in any state but OFFLINE', () => {
    const members = [
      { id: 'executor-1', state: 'WORKING' },
      { id: 'executor-2', state: 'JOINING' },
      { id: 'executor-3', state: 'OFFLINE' },
      { id: 'scheduler-1', state: 'WORKING' },
    ];
    expect(liveSenders(members, executors)).toBe(2);
  });

  it('is never below 1: the caller itself sends', () => {
    expect(liveSenders([{ id: 'executor-1', state: 'OFFLINE' }], executors)).toBe(1);
    expect(liveSenders([], executors)).toBe(1);
  });
});

describe('demandFraction', () => {
  const FLOOR = 0.1;

  it('splits evenly when no sender has demand, or all the same', () => {
    expect(demandFraction(0, [0, 0], FLOOR)).toBeCloseTo(1 / 3);
    expect(demandFraction(2000, [2000], FLOOR)).toBeCloseTo(0.5);
  });

  it('gives a sender with work nearly all of it when the others have none, keeping their floor', () => {
    const busy = demandFraction(2000, [0, 0], FLOOR);
    const idle = demandFraction(0, [2000, 0], FLOOR);
    expect(idle).toBeCloseTo(FLOOR / 3 / (1 + (2 * FLOOR) / 3));
    expect(busy + 2 * idle).toBeCloseTo(1);
    expect(busy).toBeGreaterThan(0.9);
  });

  it('splits in proportion to demand, the fractions of all senders summing to 1', () => {
    const demands = [3000, 1000, 0];
    const fractions = demands.map((own, i) =>
      demandFraction(own, [...demands.slice(0, i), ...demands.slice(i + 1)], FLOOR),
    );
    expect(fractions.reduce((a, b) => a + b)).toBeCloseTo(1);
    expect(fractions[0]! / fractions[1]!).toBeCloseTo(3);
    expect(fractions[2]).toBeGreaterThan(0);
  });

  it('counts a peer not heard from at an even share', () => {
    expect(demandFraction(1000, [undefined], FLOOR)).toBeCloseTo(0.5);
    // Of the half the unheard one leaves, the busy sender takes nearly all.
    expect(demandFraction(1000, [undefined, 0], FLOOR)).toBeCloseTo(2 / 3 / (2 / 3 + 1 / 3 + FLOOR / 3));
  });

  it('refuses a negative demand or a floor outside [0, 1], naming the field', () => {
    expect(() => demandFraction(-1, [0], FLOOR)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'demand' }) }),
    );
    expect(() => demandFraction(0, [Number.NaN], FLOOR)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'demand' }) }),
    );
    expect(() => demandFraction(0, [0], 2)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'floor' }) }),
    );
  });
});

describe('fractionOfChannel', () => {
  it('scales both bounds', () => {
    expect(fractionOfChannel({ minRate: 100, maxRate: 20_000 }, 0.25)).toEqual({ minRate: 25, maxRate: 5000 });
  });

  it.each([0, 1.5, Number.NaN])('refuses a fraction of %p, naming the field', (fraction) => {
    expect(() => fractionOfChannel({ minRate: 1, maxRate: 10 }, fraction)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'fraction' }) }),
    );
  });
});
