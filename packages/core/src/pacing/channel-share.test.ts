import { ChannelPacing } from './channel-pacing';
import { liveSenders, shareOfChannel } from './channel-share';

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
