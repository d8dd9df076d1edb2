import { HeraldError, ValidationError } from '../errors';
import { retry } from './retry';

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
    const result = await retry(async () => (++calls < 5 ? Promise.reject(unavailable()) : 'ok'), {
      ...time,
      baseDelayMs: 10,
      maxDelayMs: 40,
    });
    expect(result).toBe('ok');
    expect(calls).toBe(5);
    expect(time.waits).toEqual([5, 10, 20, 20]);
  });

  it('throws a non-retriable error at once', async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(retry(async () => Promise.reject(new ValidationError((++calls, 'bad'))), time)).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(calls).toBe(1);
    await expect(retry(async () => Promise.reject(new Error('plain')), time)).rejects.toThrow('plain');
  });

  it('gives up with the last error at the deadline', async () => {
    const time = fakeTime();
    await expect(
      retry(async () => Promise.reject(unavailable()), {
        ...time,
        baseDelayMs: 100,
        maxDelayMs: 100,
        deadlineMs: 1000,
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(time.now()).toBeLessThanOrEqual(1000);
    expect(time.waits.length).toBeGreaterThan(5);
  });
});
