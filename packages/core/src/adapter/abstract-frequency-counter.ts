import type { RetryOptions } from '../retry/retry';
import type { FrequencyCounter, FrequencyUse } from '../ports/frequency-counter';
import { checkFrequencyDay, checkFrequencyUses, checkSortedUins } from '../frequency/counter-rules';
import { AdapterLifecycle, type ErrorTranslator } from './lifecycle';

export interface FrequencyCounterBaseOptions {
  name: string;
  translate: ErrorTranslator;
  retry?: RetryOptions;
}

/**
 * The FrequencyCounter contract every adapter shares: each call refuses
 * after close (STORE_CLOSED), checks its input with the core rules once and
 * calls the adapter's `_used` / `_consume`. Both are safe to repeat (a read;
 * consuming is idempotent by (uin, day, taskId)), so both ride out outages
 * when the adapter was given retry options.
 */
export abstract class AbstractFrequencyCounter implements FrequencyCounter {
  protected readonly life: AdapterLifecycle;

  protected constructor(options: FrequencyCounterBaseOptions) {
    this.life = new AdapterLifecycle(options);
  }

  used(sortedUins: Uint32Array, day: number): Promise<Uint32Array> {
    return this.life.idempotent('used', async () => {
      checkSortedUins(sortedUins);
      checkFrequencyDay(day);
      if (sortedUins.length === 0) return new Uint32Array(0);
      return this._used(sortedUins, day);
    });
  }

  consume(uses: readonly FrequencyUse[]): Promise<void> {
    return this.life.idempotent('consume', async () => {
      checkFrequencyUses(uses);
      return this._consume(uses);
    });
  }

  /** Waits for calls in flight, then the adapter releases its backend. Later calls fail with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this._close());
  }

  /** Counts per uin of checked, sorted, non-empty `sortedUins` on `day`, aligned with the input. */
  protected abstract _used(sortedUins: Uint32Array, day: number): Promise<Uint32Array>;
  protected abstract _consume(uses: readonly FrequencyUse[]): Promise<void>;
  protected abstract _close(): Promise<void>;
}
