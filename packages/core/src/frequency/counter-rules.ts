/*
 * The argument checks of the FrequencyCounter contract
 * (ports/frequency-counter.ts), shared by every adapter. Pure: no I/O.
 */
import { ValidationError } from '../errors';
import type { FrequencyUse } from '../ports/frequency-counter';
import { isSortedUint32 } from '../uins/sorted-set';

/** Largest local day number an adapter must store (u32 keys): far beyond any real date. */
export const MAX_FREQUENCY_DAY = 0xffffffff;

export function checkFrequencyDay(day: number): void {
  if (!Number.isInteger(day) || day < 0 || day > MAX_FREQUENCY_DAY) {
    throw new ValidationError(`frequency counter: day must be an integer in [0, 2^32) (got ${day})`, { day });
  }
}

export function checkSortedUins(uins: Uint32Array, what = 'uins'): void {
  if (!(uins instanceof Uint32Array)) throw new ValidationError(`frequency counter: ${what} must be a Uint32Array`);
  if (!isSortedUint32(uins)) throw new ValidationError(`frequency counter: ${what} must be sorted ascending`);
}

export function checkFrequencyUses(uses: readonly FrequencyUse[]): void {
  if (!Array.isArray(uses as unknown)) throw new ValidationError('frequency counter: uses must be an array');
  uses.forEach((use, i) => {
    if (use === null || typeof use !== 'object')
      throw new ValidationError(`frequency counter: uses[${i}] must be an object { taskId, day, uins }`, { index: i });
    if (!Number.isSafeInteger(use.taskId) || use.taskId < 0) {
      throw new ValidationError(
        `frequency counter: uses[${i}].taskId must be a non-negative integer (got ${use.taskId})`,
        { index: i },
      );
    }
    checkFrequencyDay(use.day);
    checkSortedUins(use.uins, `uses[${i}].uins`);
  });
}
