import type { HostLoad } from '@herald/core/dispatch';
import { HostLoads, type HeardLoad } from './host-loads';
import { replanDecision, type ReplanInput } from './replan';

const NOW = 100_000;

/** A report `ageMs` old, its executor heard steadily for `heardForMs` before it (long enough by default). */
function load(executorId: string, ageMs: number, over: Partial<HostLoad> = {}, heardForMs = 10_000): HeardLoad {
  return {
    receivedAt: NOW - ageMs,
    heardSince: NOW - ageMs - heardForMs,
    report: {
      executorId,
      sentAt: 1,
      cpuCores: 4,
      cpuBusyPermille: 100,
      memTotalBytes: 2 ** 30,
      memAvailableBytes: 2 ** 30,
      nicCapacityBytesPerSecond: 1e8,
      nicBytesPerSecond: 0,
      senderSlots: 4,
      senderSlotsFree: 4,
      ...over,
    },
  };
}

const decide = (over: Partial<ReplanInput>) =>
  replanDecision({
    named: 'e1',
    executorIds: ['e1', 'e2', 'e3'],
    loads: [],
    now: NOW,
    maxReportAgeMs: 3000,
    ...over,
  });

describe('replanDecision', () => {
  it('keeps a unit on an executor that reports', () => {
    expect(decide({ loads: [load('e1', 2999), load('e2', 0)] })).toEqual({ move: false, reason: 'reporting' });
  });

  it('moves a unit off an executor whose reports stopped, to a live one', () => {
    expect(decide({ loads: [load('e1', 3001), load('e2', 10)] })).toEqual({ move: true, to: 'e2', reason: 'silent' });
  });

  it('never moves a unit to a silent executor, nor to one it cannot send to', () => {
    expect(decide({ loads: [load('e1', 5000), load('e2', 4000), load('elsewhere', 0)] })).toEqual({
      move: false,
      reason: 'no-live-executor',
    });
  });

  it('chooses by free sender slots, then the least busy CPU, then the lowest id', () => {
    const e1 = load('e1', 9000);
    expect(
      decide({
        loads: [e1, load('e2', 0, { senderSlotsFree: 1 }), load('e3', 0, { senderSlotsFree: 3, cpuBusyPermille: 900 })],
      }),
    ).toMatchObject({ to: 'e3' });
    expect(
      decide({ loads: [e1, load('e2', 0, { cpuBusyPermille: 500 }), load('e3', 0, { cpuBusyPermille: 200 })] }),
    ).toMatchObject({ to: 'e3' });
    expect(decide({ loads: [e1, load('e3', 0), load('e2', 0)] })).toMatchObject({ to: 'e2' });
  });

  it('takes an executor that never reported for silent once another was heard steadily for maxReportAgeMs', () => {
    expect(decide({ loads: [load('e2', 0, {}, 2999)] })).toEqual({ move: false, reason: 'too-early' });
    expect(decide({ loads: [load('e2', 0, {}, 3000)] })).toEqual({ move: true, to: 'e2', reason: 'never-reported' });
  });

  it('moves nothing while no live executor has been heard steadily: just started, back from a partition, or starved', () => {
    // Every report is fresh but began a new run: the named one's silence may be only this dispatcher's own.
    expect(decide({ loads: [load('e1', 60_000), load('e2', 0, {}, 100), load('e3', 0, {}, 2000)] })).toEqual({
      move: false,
      reason: 'too-early',
    });
    // Only an executor heard steadily is a destination: e2 has the most free slots but came back a moment ago.
    expect(
      decide({
        loads: [load('e1', 60_000), load('e2', 0, { senderSlotsFree: 4 }, 100), load('e3', 0, { senderSlotsFree: 1 })],
      }),
    ).toEqual({ move: true, to: 'e3', reason: 'silent' });
  });

  it('moves nothing when no executor reports at all (the profile runs without load reports)', () => {
    expect(decide({ loads: [] })).toEqual({ move: false, reason: 'no-live-executor' });
  });
});

describe('HostLoads', () => {
  const report = (executorId: string) => load(executorId, 0).report;

  it('keeps since when each executor was heard without a gap longer than the steady gap', () => {
    const loads = new HostLoads(3000);
    loads.record(report('e1'), 1000);
    loads.record(report('e1'), 4000); // 3000 after: still steady
    loads.record(report('e2'), 2000);
    loads.record(report('e2'), 5001); // 3001 after: a new run
    const since = Object.fromEntries(loads.latest().map((l) => [l.report.executorId, [l.heardSince, l.receivedAt]]));
    expect(since).toEqual({ e1: [1000, 4000], e2: [5001, 5001] });
  });

  it('starts every run anew after a time this dispatcher heard nobody (a partition): nothing moves on the first reports back', () => {
    const loads = new HostLoads(3000);
    for (let t = 0; t <= 9000; t += 300) {
      loads.record(report('e1'), t);
      loads.record(report('e3'), t);
    }
    // Cut off for a minute; e3's report happens to come back first.
    loads.record(report('e3'), 70_000);
    const decision = (now: number) =>
      replanDecision({ named: 'e1', executorIds: ['e1', 'e3'], loads: loads.latest(), now, maxReportAgeMs: 3000 });
    expect(decision(70_010)).toEqual({ move: false, reason: 'too-early' });
    for (let t = 70_300; t <= 73_000; t += 300) loads.record(report('e3'), t);
    expect(decision(73_010)).toEqual({ move: true, to: 'e3', reason: 'silent' });
  });
});
