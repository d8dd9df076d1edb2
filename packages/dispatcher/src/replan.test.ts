import type { HostLoad, ReceivedLoad } from '@herald/core/dispatch';
import { replanDecision, type ReplanInput } from './replan';

const NOW = 100_000;

function load(executorId: string, ageMs: number, over: Partial<HostLoad> = {}): ReceivedLoad {
  return {
    receivedAt: NOW - ageMs,
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
    startedAt: 0,
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

  it('takes an executor that never reported for silent only after listening for maxReportAgeMs', () => {
    const loads = [load('e2', 0)];
    expect(decide({ loads, startedAt: NOW - 2999 })).toEqual({ move: false, reason: 'too-early' });
    expect(decide({ loads, startedAt: NOW - 3000 })).toEqual({ move: true, to: 'e2', reason: 'never-reported' });
  });

  it('moves nothing when no executor reports at all (the profile runs without load reports)', () => {
    expect(decide({ loads: [] })).toEqual({ move: false, reason: 'no-live-executor' });
  });
});
