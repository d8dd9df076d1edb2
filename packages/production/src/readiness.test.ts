import { noopLogger } from '@herald/core/ports';
import { waitFor } from '@herald/testing';
import { Readiness } from './readiness';

describe('Readiness', () => {
  it('is not ready before start, nor until every step succeeded', async () => {
    const readiness = new Readiness({ logger: noopLogger });
    let open!: () => void;
    readiness.add({ name: 'pools', run: () => new Promise<void>((resolve) => (open = resolve)) });
    readiness.add({ name: 'topics', run: async () => undefined });
    expect(readiness.status()).toEqual({ ready: false, waitingFor: ['start', 'pools', 'topics'] });
    const done = readiness.start();
    await waitFor(() => readiness.status().waitingFor.length === 1, { timeoutMs: 5000 });
    expect(readiness.status()).toEqual({ ready: false, waitingFor: ['pools'] });
    open();
    await done;
    expect(readiness.status()).toEqual({ ready: true, waitingFor: [] });
  });

  it('keeps a failing step not ready, says why, and tries it again until it succeeds', async () => {
    const readiness = new Readiness({ logger: noopLogger, retryMs: 10 });
    let tries = 0;
    readiness.add({
      name: 'kafka topics',
      run: async () => {
        if (++tries < 3) throw new Error(`broker unreachable (try ${tries})`);
      },
    });
    const done = readiness.start();
    await waitFor(() => readiness.status().warmUpErrors !== undefined, { timeoutMs: 5000 });
    expect(readiness.status()).toMatchObject({
      ready: false,
      waitingFor: ['kafka topics'],
      warmUpErrors: { 'kafka topics': expect.stringContaining('broker unreachable') },
    });
    await done;
    expect(tries).toBe(3);
    expect(readiness.status()).toEqual({ ready: true, waitingFor: [] });
  });

  it('stops retrying at stop(), not ready', async () => {
    const readiness = new Readiness({ logger: noopLogger, retryMs: 60_000 });
    let tries = 0;
    readiness.add({
      name: 'mysql',
      run: async () => {
        tries++;
        throw new Error('refused');
      },
    });
    const done = readiness.start();
    await waitFor(() => tries === 1, { timeoutMs: 5000 });
    readiness.stop();
    await done; // resolves at once rather than after the 60 s wait
    expect(tries).toBe(1);
    expect(readiness.status()).toMatchObject({ ready: false, waitingFor: ['mysql'] });
  });

  it('runs a step added after the start and is not ready until it is done', async () => {
    const readiness = new Readiness({ logger: noopLogger });
    await readiness.start();
    expect(readiness.status().ready).toBe(true);
    let finish!: () => void;
    readiness.add({ name: 'late', run: () => new Promise<void>((resolve) => (finish = resolve)) });
    expect(readiness.status()).toEqual({ ready: false, waitingFor: ['late'] });
    finish();
    await waitFor(() => readiness.status().ready, { timeoutMs: 5000 });
  });
});
