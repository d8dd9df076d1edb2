import { crc32 } from 'node:zlib';
import { ListFormatError } from '../errors';
import { decodeListHeader, LIST_HEADER_BYTES, UIN_BYTES, type ListHeader } from './format';

/**
 * Streaming decoder: feed it a file's bytes in chunks of any size, get uins
 * back as Uint32Arrays, and call `end()` to check the count and checksum.
 * Nothing is held but one partial uin between chunks, so gigabyte lists decode
 * in constant memory.
 *
 * Uins must be below `uinLimit` (2^uinSpaceBits, at most 2^32), which is why
 * they come back as u32: the online bitmap covers exactly that space.
 */
export class RecipientListDecoder {
  private headerBytes = Buffer.alloc(0);
  private header: ListHeader | undefined;
  private carry = Buffer.alloc(0);
  private crc = 0;
  private seen = 0;

  constructor(private readonly uinLimit: number = 2 ** 32) {
    if (!(uinLimit > 0 && uinLimit <= 2 ** 32)) throw new RangeError(`uinLimit must be in (0, 2^32], got ${uinLimit}`);
  }

  /** The header, once its 32 bytes have arrived. */
  get listHeader(): ListHeader | undefined {
    return this.header;
  }

  /** Uins decoded so far. */
  get decoded(): number {
    return this.seen;
  }

  /** Decodes the chunk's whole uins into a fresh array (a partial uin waits for the next chunk). */
  push(chunk: Uint8Array): Uint32Array {
    const body = this.takeBody(chunk);
    const out = new Uint32Array(body.length / UIN_BYTES);
    this.decodeInto(body, out, 0);
    return out;
  }

  /**
   * `push`, but the uins go into `out` from position `at`, and their number
   * is returned: a caller filling one preallocated array (a whole list
   * loaded) saves a temporary array and a copy per chunk. A RangeError if
   * they do not fit; a list longer than its header is LIST_TRAILING_BYTES
   * first, so an `out` of `header.count` uins always fits.
   */
  pushInto(chunk: Uint8Array, out: Uint32Array, at: number): number {
    const body = this.takeBody(chunk);
    const n = body.length / UIN_BYTES;
    if (!(Number.isInteger(at) && at >= 0 && at + n <= out.length))
      throw new RangeError(`pushInto: ${n} uins do not fit at position ${at} of an array of ${out.length}`);
    this.decodeInto(body, out, at);
    return n;
  }

  /**
   * Takes the header bytes, checksums the body bytes and keeps a partial uin
   * for the next chunk; answers the whole uins' bytes (none until the header is complete).
   */
  private takeBody(chunk: Uint8Array): Buffer {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.header === undefined) {
      const need = LIST_HEADER_BYTES - this.headerBytes.length;
      this.headerBytes = Buffer.concat([this.headerBytes, bytes.subarray(0, need)]);
      bytes = bytes.subarray(need);
      if (this.headerBytes.length < LIST_HEADER_BYTES) return bytes.subarray(0, 0);
      this.header = decodeListHeader(this.headerBytes);
    }
    if (bytes.length === 0) return bytes;
    this.crc = crc32(bytes, this.crc);
    if (this.carry.length > 0) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = Buffer.alloc(0);
    }
    const whole = bytes.length - (bytes.length % UIN_BYTES);
    if (whole < bytes.length) this.carry = Buffer.from(bytes.subarray(whole));
    // Bytes past the declared body are trailing even when they are less than one whole uin.
    if (this.seen * UIN_BYTES + whole + this.carry.length > this.header.count * UIN_BYTES) {
      throw new ListFormatError(
        'LIST_TRAILING_BYTES',
        `recipient list has more than the ${this.header.count} uins its header declares`,
        {
          declared: this.header.count,
        },
      );
    }
    return bytes.subarray(0, whole);
  }

  /** Checks that the body was complete and intact; returns the header. */
  end(): ListHeader {
    if (this.header === undefined) {
      throw new ListFormatError(
        'LIST_TRUNCATED',
        `recipient list is ${this.headerBytes.length} bytes, shorter than its ${LIST_HEADER_BYTES}-byte header`,
      );
    }
    if (this.carry.length > 0 || this.seen < this.header.count) {
      throw new ListFormatError(
        'LIST_TRUNCATED',
        `recipient list is truncated: header declares ${this.header.count} uins, body holds ${this.seen}`,
        {
          declared: this.header.count,
          found: this.seen,
        },
      );
    }
    if (this.crc >>> 0 !== this.header.bodyCrc) {
      throw new ListFormatError(
        'LIST_CHECKSUM_MISMATCH',
        'recipient list body checksum does not match its header: the file is corrupt',
      );
    }
    return this.header;
  }

  /** Checks each uin of `body` (whole u64 pairs) against the uin space and writes it to `out` from `at`. */
  private decodeInto(body: Buffer, out: Uint32Array, at: number): void {
    const n = body.length / UIN_BYTES;
    // Read the u64 pairs as (low, high) u32 words; copy once if unaligned.
    const aligned = body.byteOffset % 4 === 0 ? body : Buffer.from(body);
    const words = new Uint32Array(aligned.buffer, aligned.byteOffset, n * 2);
    const limit = this.uinLimit;
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i]!;
      const hi = words[2 * i + 1]!;
      if (hi !== 0 || lo >= limit) this.outOfRange(hi, lo, this.seen + i);
      out[at + i] = lo;
    }
    this.seen += n;
  }

  private outOfRange(hi: number, lo: number, position: number): never {
    throw uinOutOfRange(hi, lo, position, this.uinLimit);
  }
}

/** LIST_UIN_OUT_OF_RANGE for the u64 (hi, lo) read at `position` of a list, outside [0, limit). */
export function uinOutOfRange(hi: number, lo: number, position: number, limit: number): ListFormatError {
  // Exact as a BigInt: hi * 2^32 + lo as a double rounds above 2^53 (2^64-1 would print 18446744073709552000).
  const uin = (BigInt(hi) << 32n) | BigInt(lo);
  return new ListFormatError(
    'LIST_UIN_OUT_OF_RANGE',
    `uin ${uin} at position ${position} is outside the configured uin space [0, ${limit})`,
    {
      // JSON has no BigInt: a number while it is exact, else its decimal digits.
      uin: uin <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(uin) : uin.toString(),
      position,
      limit,
    },
  );
}
