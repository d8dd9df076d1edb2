import { crc32 } from 'node:zlib';
import { ListFormatError } from '../errors';

/**
 * Recipient-list file, version 1. Every audience source converges into one.
 *
 *   offset size  field
 *   0      4     magic      "HRLS" (0x48 0x52 0x4C 0x53)
 *   4      2     version    u16 LE, 1
 *   6      2     flags      u16 LE: bit 0 SORTED (ascending), bit 1 UNIQUE; others 0
 *   8      8     count      u64 LE, number of uins in the body
 *   16     4     bodyCrc    u32 LE, CRC-32 (IEEE) of the body bytes
 *   20     4     headerCrc  u32 LE, CRC-32 of bytes 0..19
 *   24     8     reserved   zero
 *   32     8*n   body       uins, u64 LE each
 *
 * A writer that streams does not know count and bodyCrc up front: it writes a
 * placeholder header and overwrites it when the body is complete.
 */
export const LIST_MAGIC = 0x534c5248; // "HRLS" read as u32 LE
export const LIST_VERSION = 1;
export const LIST_HEADER_BYTES = 32;
export const UIN_BYTES = 8;

export const ListFlags = { SORTED: 1, UNIQUE: 2 } as const;
const KNOWN_FLAGS = ListFlags.SORTED | ListFlags.UNIQUE;

export interface ListHeader {
  version: number;
  flags: number;
  count: number;
  bodyCrc: number;
}

export function encodeListHeader(header: Omit<ListHeader, 'version'>): Buffer {
  const buf = Buffer.alloc(LIST_HEADER_BYTES);
  buf.writeUInt32LE(LIST_MAGIC, 0);
  buf.writeUInt16LE(LIST_VERSION, 4);
  buf.writeUInt16LE(header.flags, 6);
  buf.writeBigUInt64LE(BigInt(header.count), 8);
  buf.writeUInt32LE(header.bodyCrc >>> 0, 16);
  buf.writeUInt32LE(crc32(buf.subarray(0, 20)), 20);
  return buf;
}

/** Parses and checks a 32-byte header. Throws ListFormatError naming what is wrong. */
export function decodeListHeader(bytes: Uint8Array): ListHeader {
  if (bytes.length < LIST_HEADER_BYTES) {
    throw new ListFormatError(
      'LIST_TRUNCATED',
      `recipient list is ${bytes.length} bytes, shorter than its ${LIST_HEADER_BYTES}-byte header`,
    );
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, LIST_HEADER_BYTES);
  const magic = buf.readUInt32LE(0);
  if (magic !== LIST_MAGIC) {
    throw new ListFormatError(
      'LIST_BAD_MAGIC',
      `not a recipient list: magic is 0x${magic.toString(16).padStart(8, '0')}, expected "HRLS"`,
    );
  }
  const version = buf.readUInt16LE(4);
  if (version !== LIST_VERSION) {
    throw new ListFormatError(
      'LIST_UNSUPPORTED_VERSION',
      `recipient list version ${version} is not supported (this build reads ${LIST_VERSION})`,
      { version },
    );
  }
  const headerCrc = buf.readUInt32LE(20);
  if (crc32(buf.subarray(0, 20)) !== headerCrc) {
    throw new ListFormatError(
      'LIST_BAD_HEADER',
      'recipient list header checksum does not match: the header is corrupt',
    );
  }
  const flags = buf.readUInt16LE(6);
  if ((flags & ~KNOWN_FLAGS) !== 0)
    throw new ListFormatError('LIST_BAD_HEADER', `recipient list has unknown flags 0x${flags.toString(16)}`);
  const count = buf.readBigUInt64LE(8);
  if (count > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ListFormatError('LIST_BAD_HEADER', `recipient list count ${count} is not plausible`);
  for (let i = 24; i < 32; i++) {
    if (buf[i] !== 0) throw new ListFormatError('LIST_BAD_HEADER', 'recipient list header has non-zero reserved bytes');
  }
  return { version, flags, count: Number(count), bodyCrc: buf.readUInt32LE(16) };
}
