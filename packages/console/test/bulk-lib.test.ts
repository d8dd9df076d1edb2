import { commandCounts, refusalReason, runBounded, summarize } from '../src/lib/bulk';

/** The task list's bulk commands without a browser (bulk.test.ts drives them in one). */
describe('bulk commands', () => {
  it('counts, per command, the selected tasks whose state allows it', () => {
    expect(commandCounts([])).toEqual({ pause: 0, resume: 0, cancel: 0 });
    expect(commandCounts(['SCHEDULED', 'SENDING', 'PAUSED', 'COMPLETED'])).toEqual({ pause: 2, resume: 1, cancel: 3 });
    expect(commandCounts(['COMPLETED', 'CANCELLED'])).toEqual({ pause: 0, resume: 0, cancel: 0 });
  });

  it('runs every item, never more than the limit at once, and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const done = runBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return n * 10;
    });
    // Release in reverse order of arrival, as they pile up, until all seven have run.
    let released = 0;
    while (released < 7) {
      await Promise.resolve();
      const next = releases.pop();
      if (next) {
        next();
        released++;
      }
    }
    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
  });

  it('refuses a limit that is not a whole number of at least one', async () => {
    await expect(runBounded([1], 0, async (n) => n)).rejects.toThrow('limit must be a whole number ≥ 1, got 0');
    expect(await runBounded([], 2, async (n: number) => n)).toEqual([]);
  });

  it('says why the server refused, in the operator’s words', () => {
    expect(
      refusalReason(12, {
        message: "task: event 'pause' is not allowed in state 'COMPLETED'",
        code: 'ILLEGAL_TRANSITION',
        details: { from: 'COMPLETED' },
      }),
    ).toBe('task 12 is COMPLETED');
    expect(refusalReason(9, { message: 'task 9 not found', code: 'TASK_NOT_FOUND', status: 404 })).toBe(
      'task 9 no longer exists',
    );
    expect(refusalReason(3, { message: 'Herald did not answer', code: 'NETWORK', status: 0 })).toBe(
      'task 3: Herald did not answer',
    );
  });

  it('sums up what happened, naming every refusal', () => {
    expect(summarize('pause', [{ id: 1, ok: true }])).toBe('1 paused');
    expect(
      summarize('pause', [
        { id: 1, ok: true },
        { id: 2, ok: true },
        { id: 3, ok: true },
        { id: 12, ok: false, reason: 'task 12 is COMPLETED' },
      ]),
    ).toBe('3 paused; 1 could not: task 12 is COMPLETED');
    expect(
      summarize('cancel', [
        { id: 4, ok: false, reason: 'task 4 is CANCELLED' },
        { id: 5, ok: false, reason: 'task 5 no longer exists' },
      ]),
    ).toBe('0 cancelled; 2 could not: task 4 is CANCELLED, task 5 no longer exists');
  });
});
