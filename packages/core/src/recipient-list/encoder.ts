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
    return this.bodyInto(uins, Buffer.alloc(uins.length * UIN_BYTES));
  }

  /**
   * `body`, written into `target` (at least 8 bytes a uin; its old content
   * does not matter) and answered as the part of it written: a writer that
   * waits for each write before the next reuses one buffer for a whole list,
   * where fresh ones cost a zero fill and page faults per batch.
   */
  bodyInto(uins: ArrayLike<number>, target: Buffer): Buffer {
    const bytes = uins.length * UIN_BYTES;
    if (target.length < bytes || target.byteOffset % 4 !== 0)
      throw new RangeError(`bodyInto: target must be 4-byte aligned and hold ${bytes} bytes, has ${target.length}`);
    const buf = target.subarray(0, bytes);
    const words = new Uint32Array(buf.buffer, buf.byteOffset, uins.length * 2);
    for (let i = 0; i < uins.length; i++) {
      words[2 * i] = uins[i]!;
      words[2 * i + 1] = 0;
    }
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
