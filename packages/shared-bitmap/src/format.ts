/**
 * The bitmap file: one 4096-byte header page, then the bit words, so the
 * words start page-aligned and the file is a whole number of pages.
 *
 *   offset  size  field (little-endian)
 *   0       8     magic, ASCII "HRLDBMAP"
 *   8       4     format version (1)
 *   12      4     header bytes = offset of the first word (4096)
 *   16      8     uinLimit: uins lie in [0, uinLimit), 1..2^32
 *   24      8     word count = ceil(uinLimit / 32)
 *   32      4     bits per word (32)
 *   36      4     pid of the last writer that opened the file
 *   40      8     created at, ms since the epoch
 *   48      8     last writer open, ms since the epoch
 *   56      4040  reserved, zero
 *   4096    4*N   the words, as 32-bit host-order integers: uin u is bit
 *                 (u & 31) of word (u >>> 5). On a little-endian host (x86-64)
 *                 that is bit (u & 7) of byte 4096 + (u >>> 3).
 *   ...           zero padding to a whole page
 *
 * The words are in host byte order because every process that maps the file
 * runs on the same host: the file is shared memory, not an exchange format.
 */
import { SharedBitmapError } from './errors';

export const BITMAP_MAGIC = 'HRLDBMAP';
export const BITMAP_VERSION = 1;
export const HEADER_BYTES = 4096;
export const WORD_BITS = 32;
export const MAX_UIN_LIMIT = 2 ** 32;
const PAGE = 4096;

export interface BitmapHeader {
  readonly version: number;
  readonly headerBytes: number;
  readonly uinLimit: number;
  readonly wordCount: number;
  readonly writerPid: number;
  readonly createdAtMs: number;
  readonly writerOpenedAtMs: number;
}

export function checkUinLimit(uinLimit: number, path: string): void {
  if (!(Number.isInteger(uinLimit) && uinLimit >= 1 && uinLimit <= MAX_UIN_LIMIT)) {
    throw new SharedBitmapError('BAD_UIN_LIMIT', path, `uinLimit must be an integer in [1, 2^32], got ${uinLimit}`, {
      details: { setting: 'uinLimit' },
    });
  }
}

export function wordCount(uinLimit: number): number {
  return Math.ceil(uinLimit / WORD_BITS);
}

/** Bytes of a bitmap file for `uinLimit`: the header page plus the words, rounded up to a page. */
export function bitmapFileBytes(uinLimit: number): number {
  return HEADER_BYTES + Math.ceil((wordCount(uinLimit) * 4) / PAGE) * PAGE;
}

/** Writes a new file's header into `page` (zeroed), the magic last: a reader never sees a magic before the fields it vouches for. */
export function writeHeader(page: Uint8Array, uinLimit: number, nowMs: number, pid: number): void {
  const view = new DataView(page.buffer, page.byteOffset, HEADER_BYTES);
  view.setUint32(8, BITMAP_VERSION, true);
  view.setUint32(12, HEADER_BYTES, true);
  view.setBigUint64(16, BigInt(uinLimit), true);
  view.setBigUint64(24, BigInt(wordCount(uinLimit)), true);
  view.setUint32(32, WORD_BITS, true);
  view.setBigUint64(40, BigInt(nowMs), true);
  markWriterOpen(page, nowMs, pid);
  page.set(Buffer.from(BITMAP_MAGIC, 'latin1'), 0);
}

/** Records which writer opened the file and when (for inspection only). */
export function markWriterOpen(page: Uint8Array, nowMs: number, pid: number): void {
  const view = new DataView(page.buffer, page.byteOffset, HEADER_BYTES);
  view.setUint32(36, pid, true);
  view.setBigUint64(48, BigInt(nowMs), true);
}

/**
 * Reads and checks the header of a mapped file of `fileBytes` bytes; with
 * `expectedUinLimit`, also checks the file was made for that uin space.
 */
export function readHeader(file: Uint8Array, path: string, expectedUinLimit?: number): BitmapHeader {
  if (file.byteLength < HEADER_BYTES) {
    throw new SharedBitmapError(
      'TOO_SHORT',
      path,
      `${file.byteLength} bytes is shorter than the ${HEADER_BYTES}-byte header`,
      { details: { fileBytes: file.byteLength } },
    );
  }
  const magic = Buffer.from(file.buffer, file.byteOffset, BITMAP_MAGIC.length).toString('latin1');
  if (magic !== BITMAP_MAGIC) {
    throw new SharedBitmapError(
      'BAD_MAGIC',
      path,
      `not a Herald online bitmap (magic ${JSON.stringify(magic)}, expected ${JSON.stringify(BITMAP_MAGIC)})`,
    );
  }
  const view = new DataView(file.buffer, file.byteOffset, HEADER_BYTES);
  const version = view.getUint32(8, true);
  if (version !== BITMAP_VERSION) {
    throw new SharedBitmapError(
      'UNSUPPORTED_VERSION',
      path,
      `format version ${version}; this code reads version ${BITMAP_VERSION}`,
      { details: { version } },
    );
  }
  const header: BitmapHeader = {
    version,
    headerBytes: view.getUint32(12, true),
    uinLimit: Number(view.getBigUint64(16, true)),
    wordCount: Number(view.getBigUint64(24, true)),
    writerPid: view.getUint32(36, true),
    createdAtMs: Number(view.getBigUint64(40, true)),
    writerOpenedAtMs: Number(view.getBigUint64(48, true)),
  };
  const wordBits = view.getUint32(32, true);
  if (
    header.headerBytes !== HEADER_BYTES ||
    wordBits !== WORD_BITS ||
    !(header.uinLimit >= 1 && header.uinLimit <= MAX_UIN_LIMIT) ||
    header.wordCount !== wordCount(header.uinLimit)
  ) {
    throw new SharedBitmapError('BAD_HEADER', path, 'inconsistent header', { details: { ...header, wordBits } });
  }
  if (expectedUinLimit !== undefined && header.uinLimit !== expectedUinLimit) {
    throw new SharedBitmapError(
      'UIN_LIMIT_MISMATCH',
      path,
      `the file holds uinLimit ${header.uinLimit}, configured ${expectedUinLimit}`,
      {
        details: { setting: 'uinLimit', fileUinLimit: header.uinLimit, configuredUinLimit: expectedUinLimit },
      },
    );
  }
  const needed = HEADER_BYTES + header.wordCount * 4;
  if (file.byteLength < needed) {
    throw new SharedBitmapError('TOO_SHORT', path, `${file.byteLength} bytes; its header needs ${needed}`, {
      details: { fileBytes: file.byteLength, neededBytes: needed },
    });
  }
  return header;
}
