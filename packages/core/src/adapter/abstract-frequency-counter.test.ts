import { ErrorCodes, HeraldError, isHeraldError } from '../errors';
import type { FrequencyUse } from '../ports/frequency-counter';
import type { RetryOptions } from '../retry/retry';
import { AbstractFrequencyCounter } from './abstract-frequency-counter';

/** Counts hook calls; `failures` next hook calls fail UNAVAILABLE. */
class CountingCounter extends AbstractFrequencyCounter {
  hookCalls = 0;
  failures = 0;

  constructor(retry?: RetryOptions) {
    super({
      name: 'CountingCounter',
      translate: (error, op) =>
        isHeraldError(error) ? error : new HeraldError(ErrorCodes.INTERNAL, `${op}: ${String(error)}`),
      retry,
    });
  }

  private async hook<T>(answer: T): Promise<T> {
    this.hookCalls++;
    if (this.failures-- > 0) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'down', { retriable: true });
    return answer;
  }

  protected _used(sortedUins: Uint32Array) {
    return this.hook(new Uint32Array(sortedUins.length).fill(1));
  }
  protected _consume(_uses: readonly FrequencyUse[]) {
    return this.hook(undefined);
  }
  protected async _close() {}
}

describe('AbstractFrequencyCounter', () => {
  it('checks input once, before the hook, and answers an empty batch itself', async () => {
    const counter = new CountingCounter();
    await expect(counter.used(Uint32Array.from([3, 1]), 1)).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
    await expect(counter.used(Uint32Array.from([1]), -1)).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    await expect(counter.consume([{ taskId: 1.5, day: 1, uins: Uint32Array.from([1]) }])).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
    expect(await counter.used(new Uint32Array(0), 1)).toEqual(new Uint32Array(0));
    expect(counter.hookCalls).toBe(0);
    expect([...(await counter.used(Uint32Array.from([1, 2]), 1))]).toEqual([1, 1]);
  });

  it('retries both calls through an outage (a read; an idempotent consume), and refuses them after close', async () => {
    let now = 0;
    const counter = new CountingCounter({ now: () => now, sleep: async (ms) => void (now += ms), random: () => 0.5 });
    counter.failures = 1;
    await counter.consume([{ taskId: 1, day: 1, uins: Uint32Array.from([1]) }]);
    counter.failures = 1;
    await counter.used(Uint32Array.from([1]), 1);
    expect(counter.hookCalls).toBe(4);
    await counter.close();
    await expect(counter.used(Uint32Array.from([1]), 1)).rejects.toMatchObject({ code: ErrorCodes.STORE_CLOSED });
  });
});
