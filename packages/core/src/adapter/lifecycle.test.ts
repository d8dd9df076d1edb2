import { ErrorCodes, HeraldError, isHeraldError } from '../errors';
import { AdapterLifecycle } from './lifecycle';

/** A fake clock: sleeping advances it, nothing waits for real. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)), waits, random: () => 0.5 };
}

const translate = (error: unknown, op: string) =>
  isHeraldError(error)
    ? error
    : new HeraldError(ErrorCodes.INTERNAL, `Test.${op} failed: ${String(error)}`, { cause: error });
const unavailable = () => new HeraldError(ErrorCodes.UNAVAILABLE, 'server restarting', { retriable: true });

/** A promise and the functions that settle it, for holding a call in flight. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('AdapterLifecycle', () => {
  it('runs a call and translates what the backend threw, synchronously or not', async () => {
    const life = new AdapterLifecycle({ name: 'Test', translate });
    expect(await life.run('get', async () => 7)).toBe(7);
    await expect(life.run('get', async () => Promise.reject(new Error('disk')))).rejects.toMatchObject({
      code: ErrorCodes.INTERNAL,
      message: 'Test.get failed: Error: disk',
    });
    await expect(
      life.run('get', () => {
        throw new Error('sync');
      }),
    ).rejects.toMatchObject({ code: ErrorCodes.INTERNAL });
  });

  it('refuses calls after close with STORE_CLOSED naming the adapter, its noun and the call', async () => {
    const life = new AdapterLifecycle({ name: 'TestBus', noun: 'bus', translate });
    await life.close(async () => undefined);
    expect(life.closed).toBe(true);
    const called = jest.fn(async () => 1);
    await expect(life.run('publish', called)).rejects.toMatchObject({
      code: ErrorCodes.STORE_CLOSED,
      message: 'TestBus.publish: the bus is closed',
    });
    await expect(life.idempotent('publish', called)).rejects.toMatchObject({ code: ErrorCodes.STORE_CLOSED });
    expect(called).not.toHaveBeenCalled();
  });

  it('closes after the calls in flight, releases once, and answers a second close with the first', async () => {
    const life = new AdapterLifecycle({ name: 'Test', translate });
    const held = deferred<number>();
    const call = life.run('get', () => held.promise);
    const release = jest.fn(async () => undefined);
    const first = life.close(release);
    const second = life.close(release);
    await Promise.resolve();
    expect(release).not.toHaveBeenCalled();
    held.resolve(3);
    expect(await call).toBe(3);
    await Promise.all([first, second]);
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('translates a failing release', async () => {
    const life = new AdapterLifecycle({ name: 'Test', translate });
    await expect(life.close(async () => Promise.reject(new Error('busy')))).rejects.toMatchObject({
      code: ErrorCodes.INTERNAL,
      message: 'Test.close failed: Error: busy',
    });
  });

  it('retries an idempotent call through retriable errors, only with retry options', async () => {
    const time = fakeTime();
    let failures = 2;
    const flaky = async () => (failures-- > 0 ? Promise.reject(unavailable()) : 'ok');
    const retrying = new AdapterLifecycle({ name: 'Test', translate, retry: time });
    expect(await retrying.idempotent('get', flaky)).toBe('ok');
    expect(time.waits).toHaveLength(2);

    failures = 1;
    const plain = new AdapterLifecycle({ name: 'Test', translate });
    await expect(plain.idempotent('get', flaky)).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE });
  });

  it('never retries a call run once, even with retry options', async () => {
    const time = fakeTime();
    const life = new AdapterLifecycle({ name: 'Test', translate, retry: time });
    const insert = jest.fn(async () => Promise.reject(unavailable()));
    await expect(life.run('append', insert)).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect(insert).toHaveBeenCalledTimes(1);
    expect(time.waits).toEqual([]);
  });

  it('ends the retries of a call with STORE_CLOSED once the adapter closes', async () => {
    // The sleep runs only once a retry waits, after `life` exists.
    const time = { ...fakeTime(), sleep: async () => void (await life.close(async () => undefined)) };
    const life: AdapterLifecycle = new AdapterLifecycle({ name: 'Test', translate, retry: time });
    const call = jest.fn(async () => Promise.reject(unavailable()));
    await expect(life.idempotent('get', call)).rejects.toMatchObject({ code: ErrorCodes.STORE_CLOSED });
    expect(call).toHaveBeenCalledTimes(1);
  });
});
