import {
  buildFunnel,
  CoverageCounter,
  countBitsBetween,
  onlineBitsOf,
  type FunnelFacts,
  type FunnelStage,
} from './index';

const facts = (over: Partial<FunnelFacts> = {}): FunnelFacts => ({
  taskState: 'SENDING',
  expiresAt: 1_000,
  now: 500,
  filtered: true,
  report: { total: 100, kept: 70, removed: { duplicate: 5, blacklisted: 10, over_frequency: 15 } },
  delivery: {
    kind: 'counted',
    coverage: { online: 30, rejected: {}, offline: 25, passedWithoutRecord: 5, unconfirmed: 10 },
  },
  logins: { kind: 'counted', counts: { delivered: 8, expired: 2, over_frequency: 3 } },
  ...over,
});

const count = (stages: FunnelStage[], stage: string, extra: Partial<FunnelStage> = {}) => {
  const found = stages.filter(
    (s) =>
      s.stage === stage &&
      (extra.link === undefined || s.link === extra.link) &&
      (extra.why === undefined || s.why === extra.why),
  );
  if (found.length !== 1) throw new Error(`${found.length} stages ${stage}`);
  return found[0]!.count;
};
const sumOf = (stages: FunnelStage[], of: string) =>
  stages.filter((s) => s.of === of).reduce((sum, s) => sum + (s.count as number), 0);

describe('buildFunnel', () => {
  it('sums at every level: audience, kept, offline', () => {
    const stages = buildFunnel(facts());
    expect(sumOf(stages, 'audience')).toBe(count(stages, 'audience'));
    expect(sumOf(stages, 'kept')).toBe(count(stages, 'kept'));
    expect(sumOf(stages, 'queued_offline')).toBe(count(stages, 'queued_offline'));
    expect(count(stages, 'waiting')).toBe(25 - 8 - 2 - 3);
    expect(count(stages, 'expired')).toBe(0);
    expect(count(stages, 'not_reached')).toBe(10);
    expect(count(stages, 'unknown')).toBe(5);
  });

  it('lists every link in chain order with what is left after it', () => {
    const removed = buildFunnel(facts()).filter((s) => s.stage === 'removed');
    expect(removed.map((s) => [s.link, s.count, s.remaining])).toEqual([
      ['duplicate', 5, 95],
      ['blacklisted', 10, 85],
      ['already_sent', 0, 85],
      ['not_follower', 0, 85],
      ['targeting', 0, 85],
      ['held_out', 0, 85],
      ['over_frequency', 15, 70],
    ]);
  });

  it('counts the open offline entries as expired once the task expired', () => {
    const stages = buildFunnel(facts({ now: 1_000 }));
    expect(count(stages, 'waiting')).toBe(0);
    expect(count(stages, 'expired')).toBe(12);
    expect(count(stages, 'dropped_at_login', { why: 'over_frequency' })).toBe(3);
    expect(sumOf(stages, 'queued_offline')).toBe(25);
  });

  it('counts unconfirmed positions of a completed task as unknown, as classifyFate does', () => {
    const stages = buildFunnel(facts({ taskState: 'COMPLETED' }));
    expect(count(stages, 'not_reached')).toBe(0);
    expect(count(stages, 'unknown')).toBe(15);
    expect(sumOf(stages, 'kept')).toBe(70);
  });

  it('says unknown with the reason where there are no delivery records, never a zero', () => {
    const stages = buildFunnel(facts({ delivery: { kind: 'unavailable', reason: 'no records here' } }));
    for (const name of ['delivered_online', 'rejected', 'queued_offline', 'not_reached'])
      expect(stages.find((s) => s.stage === name)).toMatchObject({ count: 'unknown', reason: 'no records here' });
    expect(stages.find((s) => s.stage === 'unknown')).toMatchObject({ count: 70, reason: 'no records here' });
    expect(stages.some((s) => s.of === 'queued_offline')).toBe(false);
  });

  it('says the login stages are unknown when the outcomes are not counted, or exceed the offline entries', () => {
    const unavailable = buildFunnel(facts({ logins: { kind: 'unavailable', reason: 'host down' } }));
    expect(unavailable.filter((s) => s.of === 'queued_offline').map((s) => s.count)).toEqual(Array(5).fill('unknown'));
    const tooMany = buildFunnel(
      facts({ logins: { kind: 'counted', counts: { delivered: 30, expired: 0, over_frequency: 0 } } }),
    );
    expect(tooMany.find((s) => s.stage === 'delivered_at_login')).toMatchObject({ count: 'unknown' });
  });

  it('counts the positions the records say the channel rejected, by reason, beside delivered online', () => {
    const coverage = {
      online: 27,
      rejected: { invalid_token: 2, gone: 1 },
      offline: 25,
      passedWithoutRecord: 5,
      unconfirmed: 10,
    };
    const deadLetters = { invalid_token: 2, gone: 1 };
    const stages = buildFunnel(
      facts({ delivery: { kind: 'counted', coverage }, report: { ...facts().report, deadLetters } }),
    );
    expect(stages.find((s) => s.stage === 'rejected')).toEqual({
      stage: 'rejected',
      of: 'kept',
      count: 3,
      byReason: { invalid_token: 2, gone: 1 },
    });
    expect(count(stages, 'delivered_online')).toBe(27);
    expect(sumOf(stages, 'kept')).toBe(70);
  });

  it("says when the task counted more dead letters than the records name, keeping the records' count", () => {
    const stages = buildFunnel(facts({ report: { ...facts().report, deadLetters: { gone: 4 } } }));
    const rejected = stages.find((s) => s.stage === 'rejected')!;
    expect(rejected).toMatchObject({ count: 0, byReason: {} });
    expect(rejected.reason).toMatch(/counted 4 dead letters; 4 of them .* delivered_online/);
  });

  it('answers only the audience for a task not filtered yet, the rest unknown with why', () => {
    const stages = buildFunnel(
      facts({ filtered: false, taskState: 'PREPROCESSING', report: { total: 100, kept: 0, removed: {} } }),
    );
    expect(stages[0]).toEqual({ stage: 'audience', of: null, count: 100 });
    expect(stages.slice(1).every((s) => s.count === 'unknown' && /not filtered yet/.test(s.reason!))).toBe(true);
    const ended = buildFunnel(
      facts({ filtered: false, taskState: 'CANCELLED', report: { total: 9, kept: 0, removed: {} } }),
    );
    expect(ended.find((s) => s.stage === 'kept')?.reason).toMatch(/ended CANCELLED/);
  });
});

describe('CoverageCounter', () => {
  const bits = (pattern: string) =>
    onlineBitsOf(
      Uint32Array.from(pattern, (_, i) => i),
      Uint32Array.from([...pattern].flatMap((c, i) => (c === '1' ? [i] : []))),
    );

  it('counts online and offline bits and splits the gaps by the units’ checkpoints', () => {
    const counter = new CoverageCounter(20);
    counter.add({ from: 0, count: 4, online: bits('1010') });
    counter.add({ from: 8, count: 4, online: bits('1111') });
    const coverage = counter.finish([
      { start: 0, end: 10, checkpoint: 10 },
      { start: 10, end: 20, checkpoint: 12 },
    ]);
    // Gaps: [4, 8) passed by unit 0's checkpoint; [12, 20) not passed.
    expect(coverage).toEqual({ online: 6, rejected: {}, offline: 2, passedWithoutRecord: 4, unconfirmed: 8 });
  });

  it('counts rejected online positions by reason apart from the delivered ones, inside the kept range only', () => {
    const counter = new CoverageCounter(6);
    const rejected = {
      offsets: Uint32Array.of(0, 2, 3, 7),
      reasons: ['gone', 'bad'],
      reasonOf: Uint8Array.of(0, 1, 1, 0),
    };
    // Offset 3 is offline (not a rejection the fate would give), offset 7 is past the kept positions.
    counter.add({ from: 0, count: 8, online: bits('11101111'), rejected });
    expect(counter.finish([])).toEqual({
      online: 3,
      rejected: { gone: 1, bad: 1 },
      offline: 1,
      passedWithoutRecord: 0,
      unconfirmed: 0,
    });
  });

  it('counts a position two records cover once, by the first', () => {
    const counter = new CoverageCounter(6);
    counter.add({ from: 0, count: 4, online: bits('1111') });
    counter.add({ from: 2, count: 4, online: bits('0000') });
    expect(counter.finish([])).toEqual({ online: 4, rejected: {}, offline: 2, passedWithoutRecord: 0, unconfirmed: 0 });
  });

  it('counts every kept position once whatever the records', () => {
    const counter = new CoverageCounter(3);
    expect(counter.finish([{ start: 0, end: 3, checkpoint: 0 }])).toEqual({
      online: 0,
      rejected: {},
      offline: 0,
      passedWithoutRecord: 0,
      unconfirmed: 3,
    });
  });
});

describe('CoverageCounter with a host down', () => {
  const bits = (n: number) =>
    onlineBitsOf(
      Uint32Array.from({ length: n }, (_, i) => i),
      Uint32Array.of(),
    );
  const units = [
    { start: 0, end: 10, checkpoint: 10, executorId: 'e1' },
    { start: 10, end: 20, checkpoint: 15, executorId: 'e2' },
    { start: 20, end: 30, checkpoint: 25, executorId: 'e1' },
  ];

  it("counts what the others recorded, and as unknown what it may hold: its units' gaps and passed gaps", () => {
    const counter = new CoverageCounter(30);
    counter.add({ from: 0, count: 10, online: bits(10) });
    counter.add({ from: 20, count: 2, online: bits(2) });
    // e2's unit [10, 20) and the passed [22, 25) are unknown; [25, 30) is not reached (e1 answered).
    expect(counter.finish(units, new Set(['e2']))).toEqual({
      online: 0,
      rejected: {},
      offline: 12,
      passedWithoutRecord: 0,
      unconfirmed: 5,
      heldByUnreachable: { count: 13, hosts: ['e2'] },
    });
    // All answering: the same gaps are confirmed without a record, or not reached.
    expect(counter.finish(units)).toMatchObject({ passedWithoutRecord: 8, unconfirmed: 10 });
  });

  it('makes a funnel whose kept stages sum to kept, the unknown stage naming the host', () => {
    const counter = new CoverageCounter(30);
    counter.add({ from: 0, count: 10, online: bits(10) });
    const stages = buildFunnel(
      facts({
        report: { total: 30, kept: 30, removed: {} },
        delivery: { kind: 'counted', coverage: counter.finish(units, new Set(['e2'])) },
        logins: { kind: 'counted', counts: { delivered: 0, expired: 0, over_frequency: 0 } },
      }),
    );
    expect(sumOf(stages, 'kept')).toBe(30);
    expect(stages.find((s) => s.stage === 'unknown')).toMatchObject({ count: 15, reason: 'host e2 unreachable' });
    expect(stages.find((s) => s.stage === 'queued_offline')).toMatchObject({
      count: 10,
      reason: expect.stringContaining('host e2 unreachable'),
    });
    expect(count(stages, 'not_reached')).toBe(5);
  });
});

describe('countBitsBetween', () => {
  it('agrees with a bit-by-bit count on every range of a random bitset', () => {
    const bytes = Uint8Array.from({ length: 9 }, (_, i) => (i * 97 + 13) & 0xff);
    const bit = (i: number) => (bytes[i >>> 3]! >>> (i & 7)) & 1;
    for (let start = 0; start <= 72; start++)
      for (let end = start; end <= 72; end++) {
        let expected = 0;
        for (let i = start; i < end; i++) expected += bit(i);
        expect(countBitsBetween(bytes, start, end)).toBe(expected);
      }
  });
});
