import { crc32 } from 'node:zlib';
import { encodeListHeader, LIST_HEADER_BYTES, UIN_BYTES } from './format';

/**
 * Streaming encoder: `body(uins)` turns each batch into body bytes while it
 * keeps the running count and CRC; `header(flags)` gives the header for what
 * was encoded, to write at offset 0 once the body is done.
 */
export class RecipientListEncoder {
  private crc = 0;
  private count = 0;

  body(uins: ArrayLike<number>): Buffer {
    const buf = Buffer.alloc(uins.length * UIN_BYTES);
    const words = new Uint32Array(buf.buffer, buf.byteOffset, uins.length * 2);
    for (let i = 0; i < uins.length; i++) words[2 * i] = uins[i]!; // high word stays 0
    // Skip empty batches: zlib.crc32 of a zero-length view of a materialised ArrayBuffer returns 0, not the running CRC.
    if (buf.length > 0) this.crc = crc32(buf, this.crc);
    this.count += uins.length;
    return buf;
  }

  get encoded(): number {
    return this.count;
  }

  header(flags: number): Buffer {
    return encodeListHeader({ flags, count: this.count, bodyCrc: this.crc >>> 0 });
  }
}

/** Whole-file encoding for lists that fit in memory (tests, small uploads). */
export function encodeRecipientList(uins: ArrayLike<number>, flags = 0): Buffer {
  const encoder = new RecipientListEncoder();
  const body = encoder.body(uins);
  return Buffer.concat([encoder.header(flags), body], LIST_HEADER_BYTES + body.length);
}
