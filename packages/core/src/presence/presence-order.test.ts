import * as fc from 'fast-check';
import { PresenceOrder } from './presence-order';

describe('PresenceOrder', () => {
  const order = () => new PresenceOrder({ windowMs: 60_000, maxTracked: 1000 });

  it('admits events in time order and refuses an older one for the same user', () => {
    const o = order();
    expect(o.admit(7, 1000)).toBe(true); // login
    expect(o.admit(7, 900)).toBe(false); // a logout from before the login, arriving late
    expect(o.admit(7, 1100)).toBe(true);
  });

  it('keeps users apart, across the whole uin space', () => {
    const o = order();
    expect(o.admit(1, 5000)).toBe(true);
    expect(o.admit(2, 10)).toBe(true);
    expect(o.admit(2 ** 32 - 1, 5000)).toBe(true);
    expect(o.admit(2 ** 32 - 1, 4999)).toBe(false);
    expect(o.admit(0, 4999)).toBe(true);
  });

  it('admits equal times (arrival order wins) and repeats of the same event', () => {
    const o = order();
    expect(o.admit(3, 2000)).toBe(true);
    expect(o.admit(3, 2000)).toBe(true);
  });

  it('forgets a generation once the next one began more than the window ago, and only then', () => {
    const o = new PresenceOrder({ windowMs: 100, maxTracked: 1000 });
    o.admit(1, 0);
    o.admit(2, 50);
    o.admit(3, 150); // the first generation began at 0, over 100 before 150: a new one takes uin 3
    expect(o.admit(1, -5)).toBe(false); // the older generation is still asked
    expect(o.admit(2, 40)).toBe(false);
    o.admit(4, 300); // the second generation began at 150, over 100 before 300: the first is forgotten
    expect(o.admit(1, -5)).toBe(true); // forgotten: beyond the window it can no longer be refused
    expect(o.admit(3, 140)).toBe(false); // its generation is the previous one now: still remembered
  });

  it('carries a user of the older generation forward, so its next event keeps it remembered', () => {
    const o = new PresenceOrder({ windowMs: 100, maxTracked: 1000 });
    o.admit(1, 0);
    o.admit(2, 150); // new generation
    o.admit(1, 160); // found in the older one, written into the current one
    o.admit(3, 300); // the first generation forgotten
    expect(o.admit(1, 155)).toBe(false);
  });

  it('holds at most maxTracked entries however many users come, forgetting the oldest first', () => {
    const maxTracked = 100;
    const o = new PresenceOrder({ windowMs: 10 ** 12, maxTracked });
    for (let uin = 0; uin < 10 * maxTracked; uin++) {
      o.admit(uin, 1000 + uin);
      expect(o.tracked).toBeLessThanOrEqual(maxTracked);
    }
    const last = 10 * maxTracked - 1;
    // The newest half of maxTracked users is always remembered; the first ones are long forgotten.
    for (let uin = last; uin > last - maxTracked / 2; uin--) expect(o.admit(uin, 0)).toBe(false);
    expect(o.admit(0, 0)).toBe(true);
  });

  it('decides as a table remembering everyone would, while the window and the size hold everyone', () => {
    const event = fc.record({
      uin: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(2 ** 32 - 1)),
      at: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 300 }), (events) => {
        const o = new PresenceOrder({ windowMs: 10_000, maxTracked: 100 });
        const newest = new Map<number, number>();
        for (const { uin, at } of events) {
          const last = newest.get(uin);
          const expected = last === undefined || at >= last;
          if (expected) newest.set(uin, at);
          if (o.admit(uin, at) !== expected) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('rejects nonsensical options', () => {
    expect(() => new PresenceOrder({ windowMs: -1, maxTracked: 2 })).toThrow(RangeError);
    expect(() => new PresenceOrder({ windowMs: 1, maxTracked: 1 })).toThrow(RangeError);
    expect(() => new PresenceOrder({ windowMs: 1, maxTracked: 2.5 })).toThrow(RangeError);
  });
});
