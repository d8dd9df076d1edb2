/**
 * Who is online, one bit per uin. Executors only read it; the presence agent
 * writes it. This version is a typed array in one process; the shared-memory
 * version (one mapped file per host) implements the same interface.
 */
export interface OnlineView {
  isOnline(uin: number): boolean;
  /**
   * Splits `uins` into online and offline, preserving order, into the given
   * output arrays (each at least uins.length long). Returns how many went where.
   * With `onlineBits` (zeroed, at least ceil(uins.length / 8) bytes), also sets
   * bit i (of byte i >> 3) for each online position i: the batch's delivery
   * record, had in the same pass (core fate/positions.ts onlineBitsOf).
   */
  partition(
    uins: Uint32Array,
    online: Uint32Array,
    offline: Uint32Array,
    onlineBits?: Uint8Array,
  ): { online: number; offline: number };
}

export interface OnlineBitmap extends OnlineView {
  setOnline(uin: number, online: boolean): void;
  /** Everyone offline: the presence agent's first step when it rebuilds a bitmap it knows is stale. */
  clearAll(): void;
  readonly uinLimit: number;
}

export class TypedArrayBitmap implements OnlineBitmap {
  private readonly words: Uint32Array;

  /** `words` lets a caller supply the storage (shared memory); otherwise it is allocated (zero pages cost nothing until touched). */
  constructor(
    readonly uinLimit: number,
    words?: Uint32Array,
  ) {
    const needed = Math.ceil(uinLimit / 32);
    if (words !== undefined && words.length < needed)
      throw new RangeError(`bitmap storage holds ${words.length} words, needs ${needed}`);
    this.words = words ?? new Uint32Array(needed);
  }

  isOnline(uin: number): boolean {
    return uin < this.uinLimit && (this.words[uin >>> 5]! & (1 << (uin & 31))) !== 0;
  }

  setOnline(uin: number, online: boolean): void {
    if (!(uin >= 0 && uin < this.uinLimit && Number.isInteger(uin)))
      throw new RangeError(`uin ${uin} is outside [0, ${this.uinLimit})`);
    if (online) this.words[uin >>> 5]! |= 1 << (uin & 31);
    else this.words[uin >>> 5]! &= ~(1 << (uin & 31));
  }

  clearAll(): void {
    this.words.fill(0);
  }

  partition(
    uins: Uint32Array,
    online: Uint32Array,
    offline: Uint32Array,
    onlineBits?: Uint8Array,
  ): { online: number; offline: number } {
    if (onlineBits !== undefined) return this.partitionWithBits(uins, online, offline, onlineBits);
    const words = this.words;
    let on = 0;
    let off = 0;
    for (let i = 0; i < uins.length; i++) {
      const uin = uins[i]!;
      if ((words[uin >>> 5]! & (1 << (uin & 31))) !== 0) online[on++] = uin;
      else offline[off++] = uin;
    }
    return { online: on, offline: off };
  }

  /** partition's loop with the online positions' bits set too (a loop of its own: the plain one stays branch-free of it). */
  private partitionWithBits(
    uins: Uint32Array,
    online: Uint32Array,
    offline: Uint32Array,
    onlineBits: Uint8Array,
  ): { online: number; offline: number } {
    if (onlineBits.length < (uins.length + 7) >>> 3)
      throw new RangeError(`onlineBits holds ${onlineBits.length} bytes, needs ${(uins.length + 7) >>> 3}`);
    const words = this.words;
    let on = 0;
    let off = 0;
    for (let i = 0; i < uins.length; i++) {
      const uin = uins[i]!;
      if ((words[uin >>> 5]! & (1 << (uin & 31))) !== 0) {
        online[on++] = uin;
        onlineBits[i >>> 3]! |= 1 << (i & 7);
      } else offline[off++] = uin;
    }
    return { online: on, offline: off };
  }
}
