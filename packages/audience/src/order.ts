/**
 * Watches uins go by, batch after batch, and tells whether the whole sequence
 * is ascending and, if so, free of repeats. Constant memory, one comparison
 * per uin. Internal: not exported from the package.
 *
 * Uniqueness is only established for sorted sequences (a repeat is then
 * always adjacent). For an unsorted sequence `unique` is false, meaning "not
 * known to be unique", not "has a repeat".
 */
import { ListFlags } from '@herald/core/recipient-list';
import { ValidationError } from '@herald/core';

const KNOWN_FLAGS = ListFlags.SORTED | ListFlags.UNIQUE;

export class OrderTracker {
  private last = -1;
  private isSorted = true;
  private noRepeat = true;

  update(uins: Uint32Array): void {
    if (!this.isSorted) return;
    let last = this.last;
    let noRepeat = this.noRepeat;
    for (let i = 0; i < uins.length; i++) {
      const v = uins[i]!;
      if (v <= last) {
        if (v < last) {
          this.isSorted = false;
          return;
        }
        noRepeat = false;
      }
      last = v;
    }
    this.last = last;
    this.noRepeat = noRepeat;
  }

  get sorted(): boolean {
    return this.isSorted;
  }

  get unique(): boolean {
    return this.isSorted && this.noRepeat;
  }

  /** The header flags these facts justify. */
  get flags(): number {
    return (this.sorted ? ListFlags.SORTED : 0) | (this.unique ? ListFlags.UNIQUE : 0);
  }

  /**
   * Throws ValidationError when `flags` claims something the uins contradict:
   * SORTED on an unsorted sequence, UNIQUE on a sorted one with a repeat.
   * UNIQUE on an unsorted sequence cannot be checked in constant memory and is
   * taken on trust.
   */
  verify(flags: number): void {
    if (!this.isSorted && (flags & ListFlags.SORTED) !== 0) {
      throw new ValidationError('recipient list flags claim SORTED but the uins are not in ascending order', { flags });
    }
    if (this.isSorted && !this.noRepeat && (flags & ListFlags.UNIQUE) !== 0) {
      throw new ValidationError('recipient list flags claim UNIQUE but a uin repeats', { flags });
    }
  }
}

/** Rejects flag bits the format does not define (the decoder would refuse the file). */
export function checkFlags(flags: number): number {
  if (!Number.isInteger(flags) || flags < 0 || flags > 0xffff || (flags & ~KNOWN_FLAGS) !== 0) {
    throw new ValidationError(
      `recipient list flags must be a combination of ListFlags.SORTED and ListFlags.UNIQUE, got ${flags}`,
      { flags },
    );
  }
  return flags;
}
