import { HeraldError, ValidationError } from '../errors';
import { retry } from './retry';
import { retryingTaskStore } from './retrying-task-store';
import type { TaskStore } from '../ports/task-store';

/** A fake clock: sleeping advances it, nothing waits for real. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)), waits, random: () => 0.5 };
}

const unavailable = () => new HeraldError('UNAVAILABLE', 'database restarting', { retriable: true });

describe('retry', () => {
  it('retries retriable errors with growing, capped, jittered waits until it succeeds', async () => {
    const time = fakeTime();
    let calls = 0;
    const result = await retry(async () => (++calls < 5 ? Promise.reject(unavailable()) : 'ok'), { ...time, baseDelayMs: 10, maxDelayMs: 40 });
    expect(result).toBe('ok');
    expect(calls).toBe(5);
    expect(time.waits).toEqual([5, 10, 20, 20]);
  });

  it('throws a non-retriable error at once', async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(retry(async () => Promise.reject(new ValidationError((++calls, 'bad'))), time)).rejects.toBeInstanceOf(ValidationError);
    expect(calls).toBe(1);
    await expect(retry(async () => Promise.reject(new Error('plain')), time)).rejects.toThrow('plain');
  });

  it('gives up with the last error at the deadline', async () => {
    const time = fakeTime();
    await expect(retry(async () => Promise.reject(unavailable()), { ...time, baseDelayMs: 100, maxDelayMs: 100, deadlineMs: 1000 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(time.now()).toBeLessThanOrEqual(1000);
    expect(time.waits.length).toBeGreaterThan(5);
  });
});

describe('retryingTaskStore', () => {
  it('retries each call through an outage and leaves close alone', async () => {
    const time = fakeTime();
    let failures = 2;
    let closed = 0;
    const store = {
      getTask: async (id: number) => (failures-- > 0 ? Promise.reject(unavailable()) : { id }),
      close: async () => void closed++,
    } as unknown as TaskStore;
    const retrying = retryingTaskStore(store, time);
    expect(await retrying.getTask(7)).toEqual({ id: 7 });
    expect(time.waits).toHaveLength(2);
    await retrying.close();
    expect(closed).toBe(1);
  });
});
