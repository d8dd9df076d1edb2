import type { HeadParts } from './report-lines';

/** Bytes gathered before a chunk is handed on: one write per row would cost more than the rows. */
export const CHUNK_BYTES = 64 * 1024;

/** The longest decimal a head holds: a safe integer. */
const MAX_DIGITS = 16;

/**
 * The report's bytes, gathered into chunks of about CHUNK_BYTES: a row is
 * written straight into the chunk (its head's numbers digit by digit, its
 * tail as bytes rendered once per run), so a row costs no string and no
 * allocation. A chunk is ready once the next row does not fit in it.
 */
export class ReportChunks {
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  private readonly ready: Buffer[] = [];
  private readonly before: Buffer;
  private readonly afterUin: Buffer;
  private readonly noPosition: Buffer;
  private readonly beforeCopies: Buffer | undefined;
  private readonly afterHead: Buffer;
  private readonly headRoom: number;

  constructor(parts: HeadParts) {
    this.before = Buffer.from(parts.before);
    this.afterUin = Buffer.from(parts.afterUin);
    this.noPosition = Buffer.from(parts.noPosition);
    this.beforeCopies = parts.beforeCopies === undefined ? undefined : Buffer.from(parts.beforeCopies);
    this.afterHead = Buffer.from(parts.afterHead);
    this.headRoom =
      this.before.length +
      Math.max(this.afterUin.length, this.noPosition.length) +
      (this.beforeCopies?.length ?? 0) +
      this.afterHead.length +
      3 * MAX_DIGITS;
  }

  /** Whether a chunk is ready to be taken. */
  get hasReady(): boolean {
    return this.ready.length > 0;
  }

  /** The ready chunks, handed over. */
  take(): Buffer[] {
    return this.ready.splice(0);
  }

  /** Every chunk, the last one partly filled, handed over. */
  finish(): Buffer[] {
    if (this.at > 0) this.ready.push(this.buffer.subarray(0, this.at));
    this.at = 0;
    return this.take();
  }

  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buffer.write(text, this.at);
  }

  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.put(bytes);
  }

  /** headText(parts, uin, position, copies), as bytes; a negative position (the walk's -1): a row outside the list. */
  head(uin: number, position: number, copies: number): void {
    this.room(this.headRoom);
    this.put(this.before);
    this.digits(uin);
    if (position < 0) {
      this.put(this.noPosition);
    } else {
      this.put(this.afterUin);
      this.digits(position);
    }
    if (copies > 0 && this.beforeCopies !== undefined) {
      this.put(this.beforeCopies);
      this.digits(copies);
    }
    this.put(this.afterHead);
  }

  /**
   * A head's parts are a few bytes, copied faster by a loop than by
   * TypedArray#set's call; from about 8 bytes on (a tail is 50 to 150) set
   * is faster, about 26 ns whatever the length against 90 ns for a loop over
   * a 57-byte CSV tail (measured on node 20).
   */
  private put(bytes: Uint8Array): void {
    const length = bytes.length;
    if (length > 8) {
      this.buffer.set(bytes, this.at);
    } else {
      const buffer = this.buffer;
      const at = this.at;
      for (let i = 0; i < length; i++) buffer[at + i] = bytes[i]!;
    }
    this.at += length;
  }

  /** A non-negative integer in decimal, as `${n}` writes it: two digits a division, from the right. */
  private digits(n: number): void {
    const buffer = this.buffer;
    let at = this.at + decimalLength(n);
    this.at = at;
    let rest = n;
    while (rest >= 100) {
      const next = Math.floor(rest / 100);
      const pair = (rest - next * 100) << 1;
      buffer[--at] = DIGIT_PAIRS[pair + 1]!;
      buffer[--at] = DIGIT_PAIRS[pair]!;
      rest = next;
    }
    // The first one or two digits, at this.at - decimalLength's start.
    if (rest >= 10) {
      buffer[at - 1] = DIGIT_PAIRS[(rest << 1) + 1]!;
      buffer[at - 2] = DIGIT_PAIRS[rest << 1]!;
    } else {
      buffer[at - 1] = 48 + rest;
    }
  }

  /** Hands the chunk on when `bytes` more do not fit in it. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at > 0) this.ready.push(this.buffer.subarray(0, this.at));
    this.buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    this.at = 0;
  }
}

/** "00" to "99" as ASCII, two bytes each. */
const DIGIT_PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1');

/** How many decimal digits `n` (a non-negative safe integer) has. */
function decimalLength(n: number): number {
  let length = 1;
  for (let bound = 10; n >= bound && length < MAX_DIGITS; bound *= 10) length++;
  return length;
}
