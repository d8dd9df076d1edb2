import { Resources } from './resources';
import { noopLogger } from '@herald/core/ports';
import { waitFor } from '@herald/testing';

describe('Resources', () => {
  it('closes what a failed start had opened, newest first, and rethrows', async () => {
    const closed: string[] = [];
    const scope = new Resources();
    const failure = new Error('the third did not open');
    await expect(
      scope.starting(async () => {
        scope.add('first', 'a', () => void closed.push('first'));
        scope.add('second', 'b', async () => void closed.push('second'));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['second', 'first']);
  });

  it('goes on closing after one close fails, and closes each resource once', async () => {
    const closed: string[] = [];
    const scope = new Resources();
    scope.add('first', 'a', () => void closed.push('first'));
    scope.add('broken', 'b', () => {
      throw new Error('close failed');
    });
    scope.add('third', 'c', () => void closed.push('third'));
    await scope.closeAll();
    await scope.closeAll();
    expect(closed).toEqual(['third', 'first']);
  });
});

describe('Resources, a close that hangs', () => {
  it('names the resource in a warning while it waits, and still finishes the stop', async () => {
    const warnings: { msg: string; fields: unknown }[] = [];
    const logger = { ...noopLogger, warn: (msg: string, fields?: unknown) => void warnings.push({ msg, fields }) };
    const scope = new Resources(logger, 20);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    scope.add('quick', 'a', () => undefined);
    scope.add('stuck socket', 'b', () => released);
    const stopping = scope.closeAll();
    await waitFor(() => warnings.length > 0, { timeoutMs: 5_000, message: 'a warning for the stuck close' });
    expect(warnings[0]).toEqual({
      msg: 'stop: still closing',
      fields: { resource: 'stuck socket', waitedMs: expect.any(Number) },
    });
    release();
    await stopping;
    expect(warnings).toHaveLength(1); // the quick one closed without a word
  });
});
