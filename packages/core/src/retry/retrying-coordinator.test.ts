import { HeraldError } from '../errors';
import type { Coordinator, Election, UnitCheckpoint } from '../ports/coordinator';
import { retryingCoordinator } from './retrying-coordinator';

/** A fake clock: sleeping advances it, nothing waits for real. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)), waits, random: () => 0.5 };
}

const unavailable = () => new HeraldError('UNAVAILABLE', 'session lost', { retriable: true });
const checkpoint: UnitCheckpoint = { taskId: 1, unitNo: 0, epoch: 1, checkpoint: 10, delivered: 10, offline: 0, at: 0 };

/** A coordinator whose every call fails `failures` times first, counting calls by name. */
function flakyCoordinator(failures: number) {
  const calls: string[] = [];
  const flaky =
    <T>(name: string, answer: T) =>
    async (): Promise<T> => {
      calls.push(name);
      if (failures-- > 0) throw unavailable();
      return answer;
    };
  const coordinator: Coordinator = {
    elect: flaky('elect', {} as Election),
    putCheckpoint: flaky('putCheckpoint', undefined),
    getCheckpoint: flaky('getCheckpoint', undefined),
    listCheckpoints: flaky('listCheckpoints', []),
    removeCheckpoint: flaky('removeCheckpoint', true),
    close: flaky('close', undefined),
  };
  return { coordinator, calls, fail: (n: number) => void (failures = n) };
}

describe('retryingCoordinator', () => {
  it('retries checkpoint calls through a session loss', async () => {
    const time = fakeTime();
    const { coordinator, calls, fail } = flakyCoordinator(2);
    const retrying = retryingCoordinator(coordinator, time);
    await retrying.putCheckpoint(checkpoint);
    expect(calls).toEqual(['putCheckpoint', 'putCheckpoint', 'putCheckpoint']);
    fail(1);
    expect(await retrying.removeCheckpoint(1, 0, 3)).toBe(true);
    fail(1);
    expect(await retrying.listCheckpoints()).toEqual([]);
    fail(1);
    expect(await retrying.getCheckpoint(1, 0)).toBeUndefined();
    expect(time.waits).toHaveLength(5);
  });

  it('runs elect and close once: an election is long-lived, a close final', async () => {
    const time = fakeTime();
    const { coordinator, calls, fail } = flakyCoordinator(1);
    const retrying = retryingCoordinator(coordinator, time);
    await expect(retrying.elect('controller', 'a')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    fail(1);
    await expect(retrying.close()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(calls).toEqual(['elect', 'close']);
    expect(time.waits).toEqual([]);
  });
});
