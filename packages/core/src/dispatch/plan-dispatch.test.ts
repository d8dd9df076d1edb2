import * as fc from 'fast-check';
import { compileConfig } from '../config/compile';
import type { HostLoad, ReceivedLoad } from './host-load';
import { planDispatch, type DispatchInput, type DispatchTask, type UnitPlacement } from './plan-dispatch';

const config = compileConfig().load; // 64 B memory, 20 us CPU, 512 B NIC per recipient; 50 % share; 3 s age
const NOW = 1_800_000_000_000;
const GIB = 2 ** 30;

/** An idle 8-core host with 16 GiB, all free, and a 1 Gbit/s NIC: 8e6 us/s / 20 = 400k/s of CPU, 125e6 / 512 = 244,140/s of NIC. */
function host(executorId: string, over: Partial<HostLoad> = {}): HostLoad {
  return {
    executorId,
    sentAt: NOW,
    cpuCores: 8,
    cpuBusyPermille: 0,
    memTotalBytes: 16 * GIB,
    memAvailableBytes: 16 * GIB,
    nicCapacityBytesPerSecond: 125_000_000,
    nicBytesPerSecond: 0,
    senderSlots: 4,
    senderSlotsFree: 4,
    ...over,
  };
}

const fresh = (report: HostLoad, ageMs = 500): ReceivedLoad => ({ report, receivedAt: NOW - ageMs });

function plan(task: DispatchTask, loads: ReceivedLoad[], over: Partial<DispatchInput> = {}) {
  return planDispatch({ task, unitSize: 1 << 20, executorIds: ['a', 'b', 'c'], loads, now: NOW, config, ...over });
}

/** Recipients per executor, in the plan's order. */
function perHost(units: UnitPlacement[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const u of units) sums[u.executorId] = (sums[u.executorId] ?? 0) + u.end - u.start;
  return sums;
}

function expectCover(units: UnitPlacement[], count: number, unitSize: number): void {
  let next = 0;
  for (const u of units) {
    expect(u.start).toBe(next);
    expect(u.end).toBeGreaterThan(u.start);
    expect(u.end - u.start).toBeLessThanOrEqual(unitSize);
    next = u.end;
  }
  expect(next).toBe(count);
}

/** expectCover without an expect per unit (the property test checks thousands): the first problem, or null. */
function coverProblem(units: UnitPlacement[], count: number, unitSize: number): string | null {
  let next = 0;
  for (const u of units) {
    if (u.start !== next || u.end <= u.start || u.end - u.start > unitSize)
      return `bad unit ${JSON.stringify(u)} after ${next}`;
    if (!['a', 'b', 'c'].includes(u.executorId)) return `unit on unknown executor ${u.executorId}`;
    next = u.end;
  }
  return next === count ? null : `units end at ${next}, not ${count}`;
}

const speedTask = (count: number, requestedSpeed: number): DispatchTask => ({
  count,
  requestedSpeed,
  maySetSpeed: true,
});

describe('planDispatch', () => {
  it.each<[string, DispatchTask, ReceivedLoad[], string, Record<string, number>]>([
    [
      'one host fits: the least loaded of those that fit',
      speedTask(3_000_000, 100_000),
      [
        fresh(host('a', { cpuBusyPermille: 500 })),
        fresh(host('b', { cpuBusyPermille: 100 })),
        fresh(host('c', { nicBytesPerSecond: 100_000_000 })),
      ],
      'one-host',
      { b: 3_000_000 },
    ],
    [
      'none fits alone (NIC): the fewest hosts, in proportion to their spare capacity',
      speedTask(3_000_000, 300_000),
      // a carries 244,140/s, b 122,070/s (half its NIC used), c 183,105/s: a + c reach 300k, a + b would not.
      [
        fresh(host('a')),
        fresh(host('b', { nicBytesPerSecond: 62_500_000 })),
        fresh(host('c', { nicBytesPerSecond: 31_250_000 })),
      ],
      'split',
      { a: 1_714_286, c: 1_285_714 },
    ],
    [
      'none fits alone (memory): split by what each host holds',
      speedTask(30_000_000, 1000),
      // 1 GiB holds 16,777,216 recipients at 64 B: two hosts needed.
      [
        fresh(host('a', { memAvailableBytes: GIB })),
        fresh(host('b', { memAvailableBytes: GIB })),
        fresh(host('c', { memAvailableBytes: GIB / 2 })),
      ],
      'split',
      { a: 15_000_000, b: 15_000_000 },
    ],
    [
      'stale reports are ignored: an idle host last heard of 5 s ago is not planned on',
      speedTask(1_000_000, 100_000),
      [fresh(host('a'), 5000), fresh(host('b', { cpuBusyPermille: 600 })), fresh(host('c', { cpuBusyPermille: 900 }))],
      'one-host',
      { b: 1_000_000 },
    ],
    [
      'free sender slots = 0 excludes a host, however idle',
      speedTask(1_000_000, 100_000),
      [
        fresh(host('a', { senderSlotsFree: 0 })),
        fresh(host('b', { cpuBusyPermille: 700 })),
        fresh(host('c', { senderSlotsFree: 0 })),
      ],
      'one-host',
      { b: 1_000_000 },
    ],
    [
      'every host saturated: even split over the fresh hosts with a free slot',
      speedTask(900, 100_000),
      [
        fresh(host('a', { cpuBusyPermille: 1000 })),
        fresh(host('b', { nicBytesPerSecond: 125_000_000 })),
        fresh(host('c', { cpuBusyPermille: 1000, senderSlotsFree: 0 })),
      ],
      'saturated',
      { a: 450, b: 450 },
    ],
    [
      'no host has a free slot: even split over the fresh hosts',
      speedTask(900, 100_000),
      [
        fresh(host('a', { senderSlotsFree: 0 })),
        fresh(host('b', { senderSlotsFree: 0 })),
        fresh(host('c', { senderSlotsFree: 0 }), 4000),
      ],
      'no-free-slot',
      { a: 450, b: 450 },
    ],
    [
      'no fresh report at all: even split over every executor',
      speedTask(900, 100_000),
      [fresh(host('a'), 3001)],
      'no-fresh-report',
      { a: 300, b: 300, c: 300 },
    ],
    [
      'the cluster cannot meet the speed: every host with a slot, its share plus an even part of the shortfall',
      speedTask(1_000_000, 1_000_000),
      [
        fresh(host('a')),
        fresh(host('b', { nicBytesPerSecond: 62_500_000 })),
        fresh(host('c', { cpuBusyPermille: 1000 })),
      ],
      'short',
      // Shares a 0.244 and b 0.122 (a has twice b's spare NIC); the 0.634 they leave is split over a, b and c.
      { a: 455_404, b: 333_333, c: 211_263 },
    ],
    [
      'reports of executors the dispatcher cannot reach are ignored',
      speedTask(1000, 1000),
      [fresh(host('zz')), fresh(host('c', { cpuBusyPermille: 900 }))],
      'one-host',
      { c: 1000 },
    ],
  ])('%s', (_name, task, loads, reason, recipients) => {
    const result = plan(task, loads);
    expect(result.reason).toBe(reason);
    expect(perHost(result.units)).toEqual(recipients);
    expect(result.hosts).toEqual(Object.keys(recipients));
    expectCover(result.units, task.count, 1 << 20);
  });

  it('estimates memory from the size and CPU and NIC from the speed', () => {
    const result = plan(speedTask(1_000_000, 50_000), [fresh(host('a'))]);
    expect(result.speed).toBe(50_000);
    expect(result.needs).toEqual({ memoryBytes: 64_000_000, cpuCores: 1, nicBytesPerSecond: 25_600_000 });
  });

  it('computes the speed from global spare capacity when the account may not set one (its request is ignored)', () => {
    // Spare: a 244,140/s (NIC), b 100,000/s (CPU: 8 cores at 75 % busy = 2e6 us/s); half of 344,140.
    const loads = [fresh(host('a')), fresh(host('b', { cpuBusyPermille: 750 }))];
    const result = plan({ count: 10_000, requestedSpeed: 5, maySetSpeed: false }, loads);
    expect(result.speed).toBe(172_070);
    expect(result.reason).toBe('one-host');
    expect(result.hosts).toEqual(['a']);
    expect(plan({ count: 10_000, maySetSpeed: true }, loads).speed).toBe(172_070);
  });

  it('cuts each host range into units of at most unitSize', () => {
    const result = plan(speedTask(25, 10), [fresh(host('b'))], { unitSize: 10 });
    expect(result.units).toEqual([
      { start: 0, end: 10, executorId: 'b' },
      { start: 10, end: 20, executorId: 'b' },
      { start: 20, end: 25, executorId: 'b' },
    ]);
  });

  it('plans no unit for no recipients, and refuses a dispatcher without executors', () => {
    expect(plan(speedTask(0, 10), [fresh(host('a'))]).units).toEqual([]);
    expect(() => plan(speedTask(10, 10), [], { executorIds: [] })).toThrow(RangeError);
  });

  it('cuts each segment over the same hosts in the same proportions, no unit crossing a segment end', () => {
    // Two hosts that together just meet the speed (as in 'split'): the plan is the whole task's, made once.
    const loads = [fresh(host('a')), fresh(host('b', { nicBytesPerSecond: 62_500_000 }))];
    const whole = plan(speedTask(3000, 300_000), loads, { unitSize: 400 });
    const parts = plan(speedTask(3000, 300_000), loads, {
      unitSize: 400,
      segments: [
        { start: 0, end: 1000 },
        { start: 1200, end: 3200 },
      ],
    });
    expect(parts.reason).toBe(whole.reason);
    expect(parts.needs).toEqual(whole.needs);
    expect(parts.hosts).toEqual(whole.hosts);
    const inFirst = parts.units.filter((u) => u.end <= 1000);
    const inSecond = parts.units.filter((u) => u.start >= 1200);
    expect(inFirst.length + inSecond.length).toBe(parts.units.length);
    expectCover(inFirst, 1000, 400);
    expectCover(
      inSecond.map((u) => ({ ...u, start: u.start - 1200, end: u.end - 1200 })),
      2000,
      400,
    );
    // Each segment is shared between the hosts as the whole task would be: 2:1 here (a has twice b's spare NIC).
    const share = (units: UnitPlacement[], id: string) => perHost(units)[id]! / (perHost(units).a! + perHost(units).b!);
    expect(share(inFirst, 'a')).toBeCloseTo(share(whole.units, 'a'), 2);
    expect(share(inSecond, 'a')).toBeCloseTo(share(whole.units, 'a'), 2);
  });

  it('refuses segments that overlap, go backwards, are empty or do not add up to the task', () => {
    const loads = [fresh(host('a'))];
    const bad = [
      [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
      ],
      [{ start: 10, end: 10 }],
      [
        { start: 10, end: 20 },
        { start: 0, end: 5 },
      ],
      [{ start: 0, end: 9 }],
      [{ start: -1, end: 9 }],
    ];
    for (const segments of bad) expect(() => plan(speedTask(10, 10), loads, { segments })).toThrow(RangeError);
  });

  it('covers [0, count) exactly once, on known executors, whatever the reports', () => {
    const report = fc.record({
      executorId: fc.constantFrom('a', 'b', 'c', 'x'),
      sentAt: fc.constant(NOW),
      cpuCores: fc.integer({ min: 0, max: 256 }),
      cpuBusyPermille: fc.integer({ min: 0, max: 1000 }),
      memTotalBytes: fc.constant(64 * GIB),
      memAvailableBytes: fc.integer({ min: 0, max: 64 * GIB }),
      nicCapacityBytesPerSecond: fc.integer({ min: 0, max: 2 ** 40 }),
      nicBytesPerSecond: fc.integer({ min: 0, max: 2 ** 40 }),
      senderSlots: fc.constant(4),
      senderSlotsFree: fc.integer({ min: 0, max: 4 }),
    });
    const received = fc.record({ report, receivedAt: fc.integer({ min: NOW - 10_000, max: NOW }) });
    // At most 500 units a case: any count up to 50 million, with a unit size that keeps the plan small.
    const sized = fc
      .integer({ min: 0, max: 50_000_000 })
      .chain((count) =>
        fc.tuple(fc.constant(count), fc.integer({ min: Math.max(1, Math.ceil(count / 500)), max: 1 << 22 })),
      );
    const task = (count: number) =>
      fc.record({
        count: fc.constant(count),
        requestedSpeed: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
        maySetSpeed: fc.boolean(),
      });
    fc.assert(
      fc.property(
        sized.chain(([count, unitSize]) => fc.tuple(task(count), fc.constant(unitSize))),
        fc.array(received, { maxLength: 6 }),
        ([t, unitSize], loads) => {
          const result = plan(t, loads, { unitSize });
          expect(coverProblem(result.units, t.count, unitSize)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
