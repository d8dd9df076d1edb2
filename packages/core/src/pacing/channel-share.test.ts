import { ChannelPacing } from './channel-pacing';
import {
  demandFraction,
  fractionOfChannel,
  liveSenders,
  partToApply,
  shareOfChannel,
  type LastDemandReport,
} from './channel-share';

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

describe('partToApply', () => {
  const FLOOR = 0.1;

  it('starts from at most an even share', () => {
    expect(partToApply(0.9, 4000, undefined, 2)).toBe(0.5);
    expect(partToApply(0.2, 4000, undefined, 2)).toBe(0.2);
  });

  it('applies a fall at once', () => {
    expect(partToApply(0.3, 1000, { fraction: 0.5, told: 2000 }, 2)).toBe(0.3);
    expect(partToApply(0.3, 3000, { fraction: 0.5, told: 2000 }, 2)).toBe(0.3);
  });

  it('holds a rise of its own demand back one report, until the others have heard it', () => {
    expect(partToApply(0.8, 4000, { fraction: 0.5, told: 2000 }, 2)).toBe(0.5);
  });

  it("applies at once a rise that comes from the others' demands falling, its own not grown", () => {
    expect(partToApply(0.9, 2000, { fraction: 0.5, told: 2000 }, 2)).toBe(0.9);
    expect(partToApply(0.9, 1500, { fraction: 0.5, told: 2000 }, 2)).toBe(0.9);
  });

  it('keeps the parts within the budget when one sender finishes and the other is left alone', () => {
    // Two senders, reports alternating, each told demand heard by the other before its next report.
    type Sender = { demand: number; told: number; last?: LastDemandReport; part: number };
    const a: Sender = { demand: 4000, told: 0, part: 0.5 };
    const b: Sender = { demand: 4000, told: 0, part: 0.5 };
    const report = (me: Sender, peer: Sender): void => {
      const fraction = demandFraction(me.demand, [peer.told], FLOOR);
      me.part = partToApply(fraction, me.demand, me.last, 2);
      me.last = { fraction, told: me.demand };
      me.told = me.demand;
    };
    const parts: number[][] = [];
    const steps: [Sender, Sender, (() => void)?][] = [
      [a, b],
      [b, a],
      [a, b],
      [b, a, () => (b.demand = 0)], // b ran out of work: it tells 0 and takes its floor at once
      [a, b], // a hears 0: its own demand has not grown, the rise applies now
      [b, a, () => (b.demand = 4000)], // b has work again: its rise waits a report
      [a, b],
      [b, a],
      [a, b],
    ];
    for (const [me, peer, change] of steps) {
      change?.();
      report(me, peer);
      parts.push([a.part, b.part]);
    }
    for (const [pa, pb] of parts) expect(pa! + pb!).toBeLessThanOrEqual(1 + 1e-9);
    expect(parts[4]![0]).toBeGreaterThan(0.9); // a alone, one report after b told 0
    expect(parts[5]![1]).toBeLessThan(0.1); // b's rise held back a report
    expect(parts[8]).toEqual([expect.closeTo(0.5), expect.closeTo(0.5)]);
  });

  it('refuses a part, demand or sender count out of range, naming the field', () => {
    const field = (name: string) => expect.objectContaining({ details: expect.objectContaining({ field: name }) });
    expect(() => partToApply(0, 1000, undefined, 2)).toThrow(field('fraction'));
    expect(() => partToApply(1.5, 1000, undefined, 2)).toThrow(field('fraction'));
    expect(() => partToApply(0.5, -1, undefined, 2)).toThrow(field('demand'));
    expect(() => partToApply(0.5, 1000, undefined, 0)).toThrow(field('senders'));
  });
});
