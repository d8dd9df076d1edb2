import { ChannelPacing, type ChannelPacingOptions } from './channel-pacing';

const T0 = 1_700_000_000_000;

const options: ChannelPacingOptions = {
  initialRate: 1000,
  minRate: 100,
  maxRate: 2000,
  increasePerSecond: 100,
  decreaseFactor: 0.5,
  burstMs: 0,
  cutSpacingMs: 500,
  throttleDelayMs: 1000,
  latencyFloorMs: 50,
  latencyRiseFactor: 3,
  failureThreshold: 3,
  failureDelayMs: 100,
  openMs: 5000,
};

function pacing(overrides: Partial<ChannelPacingOptions> = {}): ChannelPacing {
  return new ChannelPacing({ ...options, ...overrides }, T0);
}

describe('ChannelPacing', () => {
  it('admits at the rate: a send pushes the next one back by its recipients over the rate', () => {
    const p = pacing();
    expect(p.admit(500, T0)).toEqual({ wait: 0 });
    expect(p.admit(500, T0)).toEqual({ wait: 500, reason: 'rate' });
    expect(p.admit(500, T0 + 500)).toEqual({ wait: 0 });
    expect(p.admit(1, T0 + 999)).toEqual({ wait: 1, reason: 'rate' });
  });

  it('lets the schedule run up to burstMs ahead, and a batch above the burst goes whole', () => {
    const p = pacing({ burstMs: 200 });
    expect(p.admit(1000, T0)).toEqual({ wait: 0 }); // 1 s of sending at once
    expect(p.admit(1, T0 + 700)).toEqual({ wait: 100, reason: 'rate' });
    expect(p.admit(1, T0 + 800)).toEqual({ wait: 0 });
  });

  it('raises the rate additively per second of acceptance, up to maxRate', () => {
    const p = pacing();
    p.accepted(10, T0 + 2000);
    expect(p.rate).toBe(1200);
    p.accepted(10, T0 + 2500);
    expect(p.rate).toBe(1250);
    p.accepted(10, T0 + 60_000);
    expect(p.rate).toBe(2000);
  });

  it('honours Retry-After exactly and cuts the rate multiplicatively', () => {
    const p = pacing();
    p.throttled(2000, 'HTTP 429', T0);
    expect(p.rate).toBe(500);
    expect(p.admit(1, T0)).toEqual({ wait: 2000, reason: 'throttled' });
    expect(p.admit(1, T0 + 1999)).toEqual({ wait: 1, reason: 'throttled' });
    expect(p.admit(1, T0 + 2000)).toEqual({ wait: 0 });
    expect(p.status(T0 + 1000)).toEqual({
      rate: 500,
      breaker: 'closed',
      held: { reason: 'throttled', detail: 'HTTP 429' },
    });
  });

  it('holds throttleDelayMs on a throttle without Retry-After', () => {
    const p = pacing();
    p.throttled(undefined, 'HTTP 429', T0);
    expect(p.admit(1, T0)).toEqual({ wait: 1000, reason: 'throttled' });
  });

  it('counts throttles closer than cutSpacingMs as one cut, and never cuts below minRate', () => {
    const p = pacing();
    p.throttled(0, '429', T0);
    p.throttled(0, '429', T0 + 100);
    expect(p.rate).toBe(500);
    for (let i = 1; i <= 10; i++) p.throttled(0, '429', T0 + i * 1000);
    expect(p.rate).toBe(100);
  });

  it('climbs back from a cut by 1% of the rate it was cut from per second, then forgets it 20% above', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, cutSpacingMs: 0 });
    p.throttled(0, '429', T0); // the ceiling: 1000; cut to 500
    expect(p.rate).toBe(500);
    p.accepted(1, T0 + 1000); // a second of full increase would be 1500: 1% of the ceiling instead
    expect(p.rate).toBe(510);
    p.accepted(1, T0 + 70_000); // 69 s more: 1200, 20% above the ceiling
    expect(p.rate).toBe(1200);
    p.accepted(1, T0 + 71_000); // past it: the ceiling is forgotten...
    expect(p.rate).toBe(1210);
    p.accepted(1, T0 + 72_000); // ...and the full increase is back
    expect(p.rate).toBe(2210);
  });

  it('does not count the hold of a throttle as acceptance: the rate rises from its end', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000 });
    p.throttled(2000, '429', T0); // cut to 500, ceiling 1000, held 2 s
    p.accepted(1, T0 + 3000); // one second of acceptance after the hold, not three
    expect(p.rate).toBe(510);
  });

  it('cuts gently (to 90%) at a throttle that finds the known ceiling again after a settled while', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, decreaseFactor: 0.7 });
    p.throttled(0, '429', T0); // deep: 700, ceiling 1000
    expect(p.rate).toBe(700);
    p.accepted(1, T0 + 20_000); // 20 s at 1% of 1000 per second: 900, within 85% of the ceiling
    expect(p.rate).toBe(900);
    p.throttled(0, '429', T0 + 20_000); // 20 s after the last cut, probing: gently
    expect(p.rate).toBeCloseTo(810, 6);
    // Again 1 s later (past cutSpacingMs, within 3 s of the last cut): the limit moved down, deep.
    p.throttled(0, '429', T0 + 21_000);
    expect(p.rate).toBeCloseTo(567, 6);
  });

  it('cuts deep at a throttle far below the known ceiling, however long after the last cut', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, decreaseFactor: 0.7 });
    p.throttled(0, '429', T0); // 700, ceiling 1000
    p.throttled(0, '429', T0 + 10_000); // 700 is below 85% of 1000: the limit fell, deep
    expect(p.rate).toBeCloseTo(490, 6);
  });

  it('cuts gently at a throttle seconds after climbing above where the last cut put it, far below the ceiling', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, decreaseFactor: 0.5 });
    p.throttled(0, '429', T0); // deep: 500, ceiling 1000
    p.accepted(1, T0 + 5000); // 5 s at 1% of 1000 per second: 550, above the 500 the cut set
    expect(p.rate).toBe(550);
    p.throttled(0, '429', T0 + 5000); // a probe found the limit between 500 and 550: 90%
    expect(p.rate).toBeCloseTo(495, 6);
  });

  it('cuts deep at a throttle within 3 s of the last cut, even after climbing above it', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, decreaseFactor: 0.5 });
    p.throttled(0, '429', T0); // 500
    p.accepted(1, T0 + 2000); // 520
    p.throttled(0, '429', T0 + 2000);
    expect(p.rate).toBe(260);
  });

  it('scales where the last cut put the rate with a new part of the budget', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000, decreaseFactor: 0.5 });
    p.throttled(0, '429', T0); // 500, ceiling 1000
    p.rescale({ minRate: 50, maxRate: 5000 }, 0.5); // 250, ceiling 500, the cut's 500 now 250
    p.accepted(1, T0 + 5000); // 5 s at 1% of 500: 275, above 250 (below 500 unscaled and 85% of the ceiling)
    expect(p.rate).toBe(275);
    p.throttled(0, '429', T0 + 5000);
    expect(p.rate).toBeCloseTo(247.5, 6);
  });

  it('cuts from the rate actually sent when the sender fell short of its pacing rate', () => {
    const p = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5, burstMs: 1000 });
    // 500 recipients every 500 ms: 1000/s sent, half the pacing's 2000/s.
    for (let t = 0; t <= 1000; t += 500) expect(p.admit(500, T0 + t)).toEqual({ wait: 0 });
    p.throttled(1000, '429', T0 + 1000);
    expect(p.rate).toBe(500); // half of the 1000/s sent (1500 in the last second: 1000/s), not of 2000
    p.accepted(1, T0 + 3000); // the ceiling stays the pacing's rate: 1% of 2000 per second after the hold
    expect(p.rate).toBe(520);
  });

  it('cuts from the pacing rate when too little was sent since the last hold to tell a rate', () => {
    const p = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5, burstMs: 1000 });
    p.failed('HTTP 503', T0); // held 100 ms, no cut
    expect(p.admit(100, T0 + 100)).toEqual({ wait: 0 }); // resumes at the hold's end
    p.throttled(1000, '429', T0 + 200); // 100 ms of sending since: too short, from 2000
    expect(p.rate).toBe(1000);
  });

  it("cuts deep twice at a throttle within a quarter second of resuming from the last cut's hold", () => {
    const p = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5, burstMs: 1000 });
    p.throttled(1000, '429', T0); // 1000, held 1 s
    expect(p.admit(100, T0 + 1000)).toEqual({ wait: 0 });
    p.throttled(1000, '429', T0 + 1100); // the channel spent its refilled burst at once: 1000 x 0.5 x 0.5
    expect(p.rate).toBe(250);
  });

  it('cuts deep once at a throttle a quarter second or more after resuming, during the hold, or settled', () => {
    const later = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5 });
    later.throttled(1000, '429', T0); // 1000, held 1 s
    later.throttled(1000, '429', T0 + 1300); // 300 ms after resuming: enough to have measured
    expect(later.rate).toBe(500);
    const held = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5 });
    held.throttled(2000, '429', T0); // 1000, held 2 s
    held.throttled(1000, '429', T0 + 600); // a late answer during the hold: not a refusal of the resumed rate
    expect(held.rate).toBe(500);
    const settled = pacing({ initialRate: 2000, maxRate: 10_000, decreaseFactor: 0.5 });
    settled.throttled(4000, '429', T0); // 1000, held 4 s
    settled.throttled(1000, '429', T0 + 4100); // 100 ms after resuming, but the last cut is 4 s old
    expect(settled.rate).toBe(500);
  });

  it('rescales the rate and the ceiling with a new part of the budget', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000 });
    p.throttled(0, '429', T0); // 500, ceiling 1000
    expect(p.rescale({ minRate: 50, maxRate: 5000 }, 0.5)).toEqual({ minRate: 50, maxRate: 5000 });
    expect(p.rate).toBe(250);
    p.accepted(1, T0 + 1000); // 1% of the halved ceiling (500) per second
    expect(p.rate).toBe(255);
    // Scaled up past the new bounds: held at maxRate.
    p.rescale({ minRate: 50, maxRate: 400 }, 4);
    expect(p.rate).toBe(400);
  });

  it('lifts the rate on a larger part to that part of what the senders sent together, the ceiling up with it', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000, increasePerSecond: 1000 });
    p.throttled(0, '429', T0); // 500, ceiling 1000
    // The part grows by half; the senders together sent 2400/s, of which this sender's new part is 1800.
    p.rescale({ minRate: 100, maxRate: 15_000 }, 1.5, { rate: 1800, now: T0 });
    expect(p.rate).toBe(1800); // not 750: scaling alone keeps the old proportion
    p.accepted(1, T0 + 1000); // the ceiling (1500 scaled) came up to 1800: 1% of it a second
    expect(p.rate).toBe(1818);
    // A throttle above the scaled rate (750), settled, is a probe's: the gentle cut, from the rate (nothing
    // was sent since the rescale to tell another).
    p.throttled(0, '429', T0 + 4000);
    expect(p.rate).toBeCloseTo(1818 * 0.9, 6);
  });

  it('never lowers the scaled rate: a lift only, and only on a larger part, within maxRate', () => {
    const p = pacing({ initialRate: 1000, maxRate: 10_000 });
    p.throttled(0, '429', T0); // 500
    p.rescale({ minRate: 100, maxRate: 20_000 }, 4, { rate: 1200, now: T0 + 1000 });
    expect(p.rate).toBe(2000); // scaled: the senders' low rate (gaps in their work) does not cut it
    p.rescale({ minRate: 100, maxRate: 2400 }, 1.1, { rate: 5000, now: T0 + 1000 });
    expect(p.rate).toBe(2400);
    p.rescale({ minRate: 50, maxRate: 1200 }, 0.5, { rate: 5000, now: T0 + 1000 });
    expect(p.rate).toBe(1200);
    p.rescale({ minRate: 100, maxRate: 2400 }, 1.5);
    expect(p.rate).toBe(1800);
  });

  it("refuses a rescale with a senders' rate that is not a finite number at least 0, naming the field", () => {
    const p = pacing();
    expect(() => p.rescale({ minRate: 100, maxRate: 2000 }, 2, { rate: -1, now: T0 })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'sent' }) }),
    );
    expect(() => p.rescale({ minRate: 100, maxRate: 2000 }, 2, { rate: Number.NaN, now: T0 })).toThrow(/sent.rate/);
    expect(() => p.rescale({ minRate: 100, maxRate: 2000 }, 2, { rate: 1, now: Number.NaN })).toThrow(/sent.now/);
    expect([p.limits, p.rate]).toEqual([{ minRate: 100, maxRate: 2000 }, 1000]);
  });

  it('tells the rate it sends at: its pacing rate, or what it sent over the last second when less', () => {
    const p = pacing({ initialRate: 2000, maxRate: 10_000, burstMs: 1000 });
    expect(p.sendingRate(T0 + 100)).toBe(2000); // too little behind it to tell: the pacing rate
    for (let t = 0; t <= 1000; t += 500) p.admit(500, T0 + t);
    expect(p.sendingRate(T0 + 1000)).toBe(1000); // 1000 sent in the last second, half its pacing rate
    expect(p.sendingRate(T0 + 5000)).toBe(2000); // nothing sent lately: no measure
  });

  it('refuses a rescale by a factor not above 0, or bounds out of order, changing nothing', () => {
    const p = pacing();
    expect(() => p.rescale({ minRate: 100, maxRate: 1000 }, 0)).toThrow(
      /rescale factor must be a finite number above 0/,
    );
    expect(() => p.rescale({ minRate: 100, maxRate: 1000 }, Number.NaN)).toThrow(/rescale factor/);
    expect(() => p.rescale({ minRate: 2000, maxRate: 1000 }, 0.5)).toThrow(/minRate must be at most maxRate/);
    expect([p.limits, p.rate]).toEqual([{ minRate: 100, maxRate: 2000 }, 1000]);
  });

  it('does not forgive what was admitted at the old rate: the schedule is capped at the cut', () => {
    const p = pacing();
    expect(p.admit(1000, T0)).toEqual({ wait: 0 });
    p.throttled(0, '429', T0);
    // 1000 recipients at 1000/s scheduled the next send at T0 + 1000; the cut caps it at now.
    expect(p.admit(1, T0)).toEqual({ wait: 0 });
  });

  it('cuts when the latency average rises above floor and factor times the lowest seen', () => {
    const p = pacing();
    for (let i = 1; i <= 5; i++) p.accepted(20, T0 + i);
    const before = p.rate;
    for (let i = 6; i <= 20 && p.rate >= before; i++) p.accepted(400, T0 + i);
    expect(p.rate).toBeLessThan(before);
  });

  it('climbs back from a run of latency cuts at 1% of the rate before them a second, not of the last cut', () => {
    const p = pacing({ initialRate: 10_000, maxRate: 10_000, increasePerSecond: 10_000 });
    for (let i = 1; i <= 5; i++) p.accepted(20, T0 + i);
    // The receiver's host stalls for 10 s: every answer slow, the rate cut again and again.
    let now = T0 + 10;
    for (; now < T0 + 10_000; now += 100) p.accepted(400, now);
    const low = p.rate;
    expect(low).toBeLessThan(1_000);
    // It recovers: 10 s of fast answers climb about 1% of 10,000 a second (the rate before the stall),
    // not 1% of the last cut's rate (about 7 a second from there).
    for (const end = now + 10_000; now < end; now += 100) p.accepted(20, now);
    expect(p.rate - low).toBeGreaterThan(800);
    expect(p.rate - low).toBeLessThan(1_500);
  });

  it('ignores latency below the floor, however it rises', () => {
    const p = pacing();
    p.accepted(1, T0);
    for (let i = 1; i <= 20; i++) p.accepted(45, T0 + i * 1000);
    expect(p.rate).toBe(2000);
  });

  it('backs off after a failure, doubling, then opens the breaker after failureThreshold in a row', () => {
    const p = pacing();
    p.failed('HTTP 503', T0);
    expect(p.admit(1, T0)).toEqual({ wait: 100, reason: 'failing' });
    p.failed('HTTP 503', T0 + 100);
    expect(p.admit(1, T0 + 100)).toEqual({ wait: 200, reason: 'failing' });
    p.failed('no answer within 500 ms', T0 + 300);
    expect(p.admit(1, T0 + 300)).toEqual({ wait: 5000, reason: 'open' });
    expect(p.status(T0 + 300)).toEqual({
      rate: 1000,
      breaker: 'open',
      held: { reason: 'open', detail: 'no answer within 500 ms' },
    });
  });

  it('a success in between resets the failures in a row', () => {
    const p = pacing();
    p.failed('503', T0);
    p.failed('503', T0 + 100);
    p.accepted(10, T0 + 400);
    p.failed('503', T0 + 500);
    expect(p.status(T0 + 500).breaker).toBe('closed');
  });

  it('half-opens after openMs with one probe; an accepted probe closes it', () => {
    const p = pacing({ failureThreshold: 1 });
    p.failed('503', T0);
    expect(p.admit(1, T0 + 4999)).toEqual({ wait: 1, reason: 'open' });
    expect(p.status(T0 + 5000).breaker).toBe('half-open');
    expect(p.admit(1, T0 + 5000)).toEqual({ wait: 0 });
    expect(p.admit(1, T0 + 5000)).toEqual({ wait: 50, reason: 'probing' });
    p.accepted(10, T0 + 5010);
    expect(p.status(T0 + 5010)).toEqual({ rate: p.rate, breaker: 'closed' });
    expect(p.admit(1, T0 + 5010)).toEqual({ wait: 0 });
  });

  it('a failed probe opens the breaker again for openMs', () => {
    const p = pacing({ failureThreshold: 1 });
    p.failed('503', T0);
    expect(p.admit(1, T0 + 5000)).toEqual({ wait: 0 });
    p.failed('503', T0 + 5100);
    expect(p.admit(1, T0 + 5100)).toEqual({ wait: 5000, reason: 'open' });
  });

  it('a throttled probe closes the breaker (the channel is up, only busy) and holds for Retry-After', () => {
    const p = pacing({ failureThreshold: 1 });
    p.failed('503', T0);
    expect(p.admit(1, T0 + 5000)).toEqual({ wait: 0 });
    p.throttled(2000, '429', T0 + 5000);
    expect(p.status(T0 + 5000).breaker).toBe('closed');
    expect(p.admit(1, T0 + 5000)).toEqual({ wait: 2000, reason: 'throttled' });
  });

  it.each<[Partial<ChannelPacingOptions>, string]>([
    [{ initialRate: 0, minRate: 0 }, 'initialRate'],
    [{ maxRate: 500 }, 'minRate <= initialRate <= maxRate'],
    [{ decreaseFactor: 1 }, 'decreaseFactor'],
    [{ latencyRiseFactor: 1 }, 'latencyRiseFactor'],
    [{ burstMs: -1 }, 'burstMs'],
    [{ openMs: Number.NaN }, 'openMs'],
  ])('refuses %j naming %s', (overrides, named) => {
    expect(() => pacing(overrides)).toThrow(named);
  });
});

describe('ChannelPacing limits at run time', () => {
  const base = {
    initialRate: 1000,
    minRate: 100,
    maxRate: 5000,
    increasePerSecond: 1000,
    decreaseFactor: 0.5,
    burstMs: 1000,
    cutSpacingMs: 0,
    throttleDelayMs: 100,
    latencyFloorMs: 10_000,
    latencyRiseFactor: 2,
    failureThreshold: 3,
    failureDelayMs: 10,
    openMs: 1000,
  };

  it('moves the rate into new bounds at once and keeps it there', () => {
    const pacing = new ChannelPacing(base, 0);
    expect(pacing.setLimits({ maxRate: 500 })).toEqual({ minRate: 100, maxRate: 500 });
    expect(pacing.rate).toBe(500);
    pacing.accepted(1, 10_000);
    expect(pacing.rate).toBe(500);
    pacing.setLimits({ minRate: 800, maxRate: 2000 });
    expect(pacing.rate).toBe(800);
  });

  it('refuses bounds out of order or not above 0, changing nothing', () => {
    const pacing = new ChannelPacing(base, 0);
    expect(() => pacing.setLimits({ minRate: 6000 })).toThrow(
      'channel pacing minRate must be at most maxRate (got 6000, 5000)',
    );
    expect(() => pacing.setLimits({ maxRate: 0 })).toThrow(/maxRate must be a finite number above 0/);
    expect([pacing.limits, pacing.rate]).toEqual([{ minRate: 100, maxRate: 5000 }, 1000]);
  });
});
