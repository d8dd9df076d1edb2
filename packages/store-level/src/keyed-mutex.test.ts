import { waitFor } from '@herald/testing';
import { KeyedMutex } from './keyed-mutex';

describe('KeyedMutex', () => {
  it('runs calls on one key one at a time, in arrival order', async () => {
    const mutex = new KeyedMutex<number>();
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = mutex.run(1, async () => {
      log.push('first:start');
      await gate;
      log.push('first:end');
    });
    const second = mutex.run(1, async () => {
      log.push('second');
    });
    await waitFor(() => log.length === 1, { message: 'the first call to start' });
    expect(log).toEqual(['first:start']);
    open();
    await Promise.all([first, second]);
    expect(log).toEqual(['first:start', 'first:end', 'second']);
    expect(mutex.busy).toBe(false);
  });

  it('runs calls on different keys concurrently', async () => {
    const mutex = new KeyedMutex<number>();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const blocked = mutex.run(1, () => gate);
    let otherDone = false;
    void mutex.run(2, async () => {
      otherDone = true;
    });
    await waitFor(() => otherDone, { message: 'key 2 to run while key 1 is held' });
    open();
    await blocked;
  });

  it('releases the key when the call throws, and passes the error on', async () => {
    const mutex = new KeyedMutex<string>();
    await expect(mutex.run('k', async () => Promise.reject(new RangeError('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('k', async () => 42)).resolves.toBe(42);
    expect(mutex.busy).toBe(false);
  });
});
