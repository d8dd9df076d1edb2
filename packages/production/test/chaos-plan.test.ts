import type { Task } from '@herald/core/task';
import { expectedFor, judge, type Left } from './chaos/checks';
import { FAULT_KINDS, planFaults, type PlannedFault } from './chaos/schedule';

/** The chaos harness's pure parts: the seeded schedule and the final checks (docs/chaos.md). */
const PROCESSES = {
  interface: ['interface-1', 'interface-2'],
  scheduler: ['scheduler-1', 'scheduler-2', 'scheduler-3'],
  dispatcher: ['dispatcher-1', 'dispatcher-2'],
  executor: ['executor-1', 'executor-2'],
  controller: ['controller-1', 'controller-2'],
};
const plan = (seed: number, count = 60) =>
  planFaults({
    seed,
    count,
    kinds: FAULT_KINDS,
    processes: PROCESSES,
    gapMs: [500, 3000],
    durationMs: [1000, 5000],
    settleMs: 3000,
  });
const out = (faults: PlannedFault[], at: number) =>
  faults.filter((f) => f.atMs <= at && at < f.atMs + f.durationMs + 3000);

describe('chaos schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(plan(7)).toEqual(plan(7));
    expect(plan(7)).not.toEqual(plan(8));
  });

  it('hits every kind once first, then keeps a process of each tier and two schedulers in, and one server out at most', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const faults = plan(seed);
      expect(faults).toHaveLength(60);
      expect(new Set(faults.slice(0, FAULT_KINDS.length).map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      for (const f of faults) {
        const now = out(faults, f.atMs);
        for (const [tier, ids] of Object.entries(PROCESSES)) {
          const gone = now.filter((g) => ids.includes(g.target)).length;
          expect(gone).toBeLessThanOrEqual(tier === 'scheduler' ? 1 : ids.length - 1);
        }
        expect(now.filter((g) => ['mariadb', 'zookeeper', 'kafka'].includes(g.target)).length).toBeLessThanOrEqual(1);
        expect(new Set(now.map((g) => g.target)).size).toBe(now.length); // no target hit twice at once
      }
    }
  });

  it('refuses a schedule it cannot keep (a scheduler cut needs three schedulers)', () => {
    expect(() =>
      planFaults({
        seed: 1,
        count: 3,
        kinds: ['scheduler-cut'],
        processes: { scheduler: ['scheduler-1', 'scheduler-2'] },
        gapMs: [1, 2],
        durationMs: [1, 2],
        settleMs: 0,
      }),
    ).toThrow(RangeError);
  });
});

describe('chaos checks', () => {
  // List 1..12 with 3 twice; blacklist 12; online: the odd ones.
  const list = Uint32Array.from([1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const expected = expectedFor(list, Uint32Array.from([12]), Uint32Array.from([1, 3, 5, 7, 9, 11]));
  const task = (report: Partial<Task['report']> = {}): Task =>
    ({
      id: 1,
      state: 'COMPLETED',
      error: null,
      report: {
        total: 13,
        kept: 11,
        removed: { duplicate: 1, blacklisted: 1 },
        delivered: 6,
        offline: 5,
        units: 2,
        unitsDone: 2,
        ...report,
      },
    }) as unknown as Task;
  const left = (delivered: number[], queued = [2, 4, 6, 8, 10]): Left => ({
    delivered: Uint32Array.from(delivered),
    atLogin: 0,
    onSeveralExecutors: 0,
    queued: Uint32Array.from(queued),
  });

  it('passes an exact outcome', () => {
    const verdict = judge(task(), expected, left([1, 3, 5, 7, 9, 11]), 4, 0);
    expect(verdict).toMatchObject({ lost: 0, extra: 0, repeats: 0, filtered: 2, problems: [] });
  });

  it('counts a lost recipient, an extra one and a wrong report', () => {
    const verdict = judge(task({ delivered: 5 }), expected, left([1, 3, 5, 7, 9, 12], [2, 4, 6, 8]), 4, 0);
    expect(verdict.lost).toBe(2); // 11 never delivered, 10 never queued
    expect(verdict.extra).toBe(1); // 12 is blacklisted
    expect(verdict.problems.join('\n')).toMatch(/delivered 5 \+ offline 5 \+ filtered 2 != list 13/);
  });

  it('allows repeats up to one batch per unit for each fault while sending, and no more', () => {
    // kept = 1..11; batches of 4: [1-4] [5-8] [9-11]. Repeats of 1, 3 (batch 0) and 9 (batch 2).
    const repeated = left([1, 1, 3, 3, 5, 7, 9, 9, 11]);
    expect(judge(task(), expected, repeated, 4, 1)).toMatchObject({
      repeats: 3,
      repeatedBatches: 2,
      repeatBound: 2,
      problems: [],
    });
    expect(judge(task(), expected, repeated, 4, 0).problems.join('\n')).toMatch(/repeats in 2 batches/);
  });

  it('flags a task that did not complete', () => {
    expect(judge({ ...task(), state: 'SENDING' }, expected, left([1, 3, 5, 7, 9, 11]), 4, 0).problems).toEqual([
      'task 1 is still SENDING',
    ]);
  });
});
