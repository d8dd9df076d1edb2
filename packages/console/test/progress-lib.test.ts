import fc from 'fast-check';
import { TASK_STATES, type Task } from '../src/api/types';
import { barValueNow, fmtPercent, fmtShare } from '../src/lib/format';
import { confirmed, preprocessed, stagePercent, stageSegments, taskRowProgress, taskStages } from '../src/lib/stages';

/**
 * Issue 22, "progress percentages that agree with the bars": the task page
 * draws each stage as a bar (stageSegments) with a number beside it
 * (stagePercent), the task list a bar and a number per row; for any task the
 * number must be the bar's filled share, rounded, and never read 100% before
 * the stage is done (nor 0% once something is done).
 */
const filled = (segments: { fraction: number | null }[]) =>
  segments.reduce((sum, s) => sum + Math.min(1, Math.max(0, s.fraction ?? 0)), 0);
const asNumber = (text: string) => (text === '<0.1%' ? 0.05 : Number(text.replace('%', '')));

const arbitraryTask = fc
  .record({
    state: fc.constantFrom(...TASK_STATES),
    kept: fc.integer({ min: 0, max: 1_000_000 }),
    removed: fc.integer({ min: 0, max: 1000 }),
    deliveredShare: fc.double({ min: 0, max: 1, noNaN: true }),
    offlineShare: fc.double({ min: 0, max: 1, noNaN: true }),
    units: fc.integer({ min: 0, max: 500 }),
    unitsDoneShare: fc.double({ min: 0, max: 1, noNaN: true }),
    filtered: fc.boolean(),
  })
  .map(({ state, kept, removed, deliveredShare, offlineShare, units, unitsDoneShare, filtered }): Task => {
    const delivered = Math.floor(kept * deliveredShare);
    const offline = Math.floor((kept - delivered) * offlineShare);
    return {
      id: 1,
      state,
      listCount: kept + removed,
      filteredListId: filtered ? 'f' : null,
      report: {
        total: kept + removed,
        kept,
        removed: {},
        delivered,
        offline,
        units,
        unitsDone: Math.floor(units * unitsDoneShare),
      },
    } as unknown as Task;
  });

describe('progress numbers and bars', () => {
  it('a stage’s number is its bar’s filled share, and reads 100% only when the bar is full and the stage done', () => {
    fc.assert(
      fc.property(arbitraryTask, (task) => {
        for (const stage of taskStages(task)) {
          const text = stagePercent(stage);
          if (stage.fraction === null) {
            expect(text).toBe('');
            continue;
          }
          const bar = filled(stageSegments(task, stage));
          expect(Math.abs(asNumber(text) - bar * 100)).toBeLessThanOrEqual(0.1);
          if (text === '100.0%') {
            expect(bar).toBeGreaterThanOrEqual(1);
            expect(stage.status).toBe('done');
          }
          if (bar < 1) expect(text).not.toBe('100.0%');
          if (bar > 0) expect(text).not.toBe('0.0%');
          expect(barValueNow(bar) === 100).toBe(bar >= 1);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a task not yet pre-processed shows no stage after pre-processing as begun, whatever its report holds', () => {
    // fast-check's counterexample (seed 1344745457): a CREATED task whose report held 1 offline of 1 kept
    // drew "Offline queued" at 100.0% while the stage was waiting.
    const task = {
      id: 1,
      state: 'CREATED',
      listCount: 1,
      filteredListId: null,
      report: { total: 1, kept: 1, removed: {}, delivered: 0, offline: 1, units: 0, unitsDone: 0 },
    } as unknown as Task;
    for (const stage of taskStages(task).slice(1)) {
      expect(stage.status).toBe('waiting');
      expect(stagePercent(stage)).toBe('0.0%');
    }
    expect(taskRowProgress(task)).toBeNull();
  });

  it('a task list row’s number is the delivery stage’s, and its bar the same bar', () => {
    fc.assert(
      fc.property(arbitraryTask, (task) => {
        const delivery = taskStages(task).find((s) => s.key === 'delivery')!;
        const row = taskRowProgress(task);
        if (!preprocessed(task)) {
          expect(row).toBeNull();
          expect(delivery.fraction).toBe(0);
          return;
        }
        expect(row).not.toBeNull();
        expect(filled(row!.segments)).toBeCloseTo(filled(stageSegments(task, delivery)), 12);
        if (task.report.kept === 0) return expect(row!.text).toBe('–');
        expect(row!.text).toBe(stagePercent(delivery));
        expect(fmtPercent(confirmed(task), task.report.kept)).toBe(row!.text);
      }),
      { numRuns: 500 },
    );
  });

  it('rounds at the edges toward the truth', () => {
    expect(fmtShare(0.99996)).toBe('99.9%');
    expect(fmtShare(1)).toBe('100.0%');
    expect(fmtShare(0.0004)).toBe('<0.1%');
    expect(fmtShare(0)).toBe('0.0%');
    expect(fmtShare(0.4567)).toBe('45.7%');
    expect(barValueNow(0.996)).toBe(99);
    expect(barValueNow(1)).toBe(100);
    expect(fmtPercent(99_999, 100_000)).toBe('99.9%');
  });
});
