import { waitFor, WaitForTimeoutError } from './wait-for';

describe('waitFor', () => {
  it('resolves as soon as the condition holds', async () => {
    let calls = 0;
    await waitFor(() => ++calls >= 3, { intervalMs: 1 });
    expect(calls).toBe(3);
  });

  it('accepts an async condition and keeps polling through errors', async () => {
    let calls = 0;
    await waitFor(
      async () => {
        calls++;
        if (calls < 3) throw new Error('not yet');
        return true;
      },
      { intervalMs: 1 },
    );
    expect(calls).toBe(3);
  });

  it('throws a WaitForTimeoutError naming what it waited for, with the last error as cause', async () => {
    const cause = new Error('still down');
    const error = await waitFor(
      () => {
        throw cause;
      },
      { timeoutMs: 20, intervalMs: 5, message: 'the broker to come up' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitForTimeoutError);
    expect((error as Error).message).toContain('the broker to come up');
    expect((error as Error).cause).toBe(cause);
  });

  it('checks at least once even with a zero timeout', async () => {
    await waitFor(() => true, { timeoutMs: 0 });
    await expect(waitFor(() => false, { timeoutMs: 0 })).rejects.toBeInstanceOf(WaitForTimeoutError);
  });
});
