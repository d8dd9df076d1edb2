import { PresenceOrder } from './presence-order';

describe('PresenceOrder', () => {
  const order = () => new PresenceOrder({ windowMs: 60_000, maxTracked: 1000 });

  it('admits events in time order and refuses an older one for the same user', () => {
    const o = order();
    expect(o.admit(7, 1000)).toBe(true); // login
    expect(o.admit(7, 900)).toBe(false); // a logout from before the login, arriving late
    expect(o.admit(7, 1100)).toBe(true);
  });

  it('keeps users apart', () => {
    const o = order();
    expect(o.admit(1, 5000)).toBe(true);
    expect(o.admit(2, 10)).toBe(true);
  });

  it('admits equal times (arrival order wins) and repeats of the same event', () => {
    const o = order();
    expect(o.admit(3, 2000)).toBe(true);
    expect(o.admit(3, 2000)).toBe(true);
  });

  it('forgets users outside the window once the table is full, and only those', () => {
    const o = new PresenceOrder({ windowMs: 100, maxTracked: 3 });
    o.admit(1, 0);
    o.admit(2, 50);
    o.admit(3, 150);
    expect(o.tracked).toBe(3);
    o.admit(4, 200); // over maxTracked: uin 1 (0 < 200 - 100) and 2 (50 < 100) go
    expect(o.tracked).toBe(2);
    expect(o.admit(3, 140)).toBe(false); // still remembered
    expect(o.admit(1, -5)).toBe(true); // forgotten: beyond the window it can no longer be refused
  });

  it('rejects nonsensical options', () => {
    expect(() => new PresenceOrder({ windowMs: -1, maxTracked: 1 })).toThrow(RangeError);
    expect(() => new PresenceOrder({ windowMs: 1, maxTracked: 0 })).toThrow(RangeError);
  });
});
