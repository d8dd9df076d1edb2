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

  push(chunk: Uint8Array): Uint32Array {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.header === undefined) {
      const need = LIST_HEADER_BYTES - this.headerBytes.length;
      this.headerBytes = Buffer.concat([this.headerBytes, bytes.subarray(0, need)]);
      bytes = bytes.subarray(need);
      if (this.headerBytes.length < LIST_HEADER_BYTES) return new Uint32Array(0);
      this.header = decodeListHeader(this.headerBytes);
    }
    if (bytes.length === 0) return new Uint32Array(0);
    this.crc = crc32(bytes, this.crc);
    if (this.carry.length > 0) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = Buffer.alloc(0);
    }
    const whole = bytes.length - (bytes.length % UIN_BYTES);
    if (whole < bytes.length) this.carry = Buffer.from(bytes.subarray(whole));
    const n = whole / UIN_BYTES;
    // Bytes past the declared body are trailing even when they are less than one whole uin.
    if ((this.seen + n) * UIN_BYTES + this.carry.length > this.header.count * UIN_BYTES) {
      throw new ListFormatError(
        'LIST_TRAILING_BYTES',
        `recipient list has more than the ${this.header.count} uins its header declares`,
        {
          declared: this.header.count,
        },
      );
    }
    const out = this.toUins(bytes.subarray(0, whole), n);
    this.seen += n;
    return out;
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

  private toUins(body: Buffer, n: number): Uint32Array {
    // Read the u64 pairs as (low, high) u32 words; copy once if unaligned.
    const aligned = body.byteOffset % 4 === 0 ? body : Buffer.from(body);
    const words = new Uint32Array(aligned.buffer, aligned.byteOffset, n * 2);
    const out = new Uint32Array(n);
    const limit = this.uinLimit;
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i]!;
      const hi = words[2 * i + 1]!;
      if (hi !== 0 || lo >= limit) {
        // Exact as a BigInt: hi * 2^32 + lo as a double rounds above 2^53 (2^64-1 would print 18446744073709552000).
        const uin = (BigInt(hi) << 32n) | BigInt(lo);
        throw new ListFormatError(
          'LIST_UIN_OUT_OF_RANGE',
          `uin ${uin} at position ${this.seen + i} is outside the configured uin space [0, ${limit})`,
          {
            // JSON has no BigInt: a number while it is exact, else its decimal digits.
            uin: uin <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(uin) : uin.toString(),
            position: this.seen + i,
            limit,
          },
        );
      }
      out[i] = lo;
    }
    return out;
  }
}
