import { checkReportsComplete, REPORT_CLOCK_SKEW_MS, ReportsIncompleteError } from './coverage';
import { ReportsMismatchError } from './remainder';

const T = 1_763_780_000_000;

describe('checkReportsComplete', () => {
  it('accepts a partition that lost nothing, empty or not', () => {
    expect(() => checkReportsComplete({ taskId: 1, partition: 0, logStart: 0n })).not.toThrow();
    expect(() =>
      checkReportsComplete({ taskId: 1, partition: 0, logStart: 0n, first: { offset: 0n, timestamp: T } }),
    ).not.toThrow();
  });

  it('refuses a partition whose log start moved, or whose first record read is past it (deleted while reading)', () => {
    for (const coverage of [
      { taskId: 7, partition: 2, logStart: 1040n, first: { offset: 1040n, timestamp: T } },
      { taskId: 7, partition: 2, logStart: 1040n },
      { taskId: 7, partition: 2, logStart: 0n, first: { offset: 5n, timestamp: T } },
    ]) {
      let error: unknown;
      try {
        checkReportsComplete(coverage);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ReportsIncompleteError);
      expect(error).toBeInstanceOf(ReportsMismatchError);
      expect((error as ReportsIncompleteError).code).toBe('VALIDATION_FAILED');
      expect((error as ReportsIncompleteError).details).toMatchObject({
        reason: 'reports_deleted',
        taskId: 7,
        partition: 2,
      });
    }
  });

  it('accepts a cut partition only when what is left was written before the task was created, skew included', () => {
    const cut = { taskId: 7, partition: 2, logStart: 1040n, first: { offset: 1040n, timestamp: T } };
    expect(() => checkReportsComplete({ ...cut, createdAt: T + REPORT_CLOCK_SKEW_MS })).not.toThrow();
    expect(() => checkReportsComplete({ ...cut, createdAt: T + REPORT_CLOCK_SKEW_MS - 1 })).toThrow(
      ReportsIncompleteError,
    );
    expect(() => checkReportsComplete({ ...cut, createdAt: T - 1 })).toThrow(ReportsIncompleteError);
    // Nothing left to date the cut by: refused whatever the creation time.
    expect(() => checkReportsComplete({ taskId: 7, partition: 2, logStart: 1040n, createdAt: T })).toThrow(
      ReportsIncompleteError,
    );
  });
});
