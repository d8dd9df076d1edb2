/**
 * Reading recipient-list files: streamed in constant memory, or loaded whole
 * into one preallocated array. Both go through core's RecipientListDecoder, so
 * a damaged file gives the same ListFormatError code either way.
 */
import type { FileHandle } from 'node:fs/promises';
import {
  decodeListHeader,
  LIST_HEADER_BYTES,
  RecipientListDecoder,
  type ListHeader,
} from '@herald/core/recipient-list';
import { checkFileLength, checkUinLimit, finishDecoding } from './decoding';
import { openForRead, positiveInteger } from './fs-util';

export interface ReadListOptions {
  /** Uins must lie in [0, uinLimit): 2^uinSpaceBits, at most 2^32. */
  uinLimit: number;
  /**
   * Bytes read from the file at a time; each yielded batch holds about
   * chunkBytes / 8 uins.
   * @defaultValue 1 MiB
   */
  chunkBytes?: number;
}

export interface LoadListOptions {
  /** Uins must lie in [0, uinLimit): 2^uinSpaceBits, at most 2^32. */
  uinLimit: number;
  /**
   * Bytes read from the file at a time. Only the read buffer's size: the
   * result is always one array.
   * @defaultValue 4 MiB (measured: larger chunks fall out of the CPU cache and decode slower)
   */
  chunkBytes?: number;
  /**
   * Load into a SharedArrayBuffer, so worker threads can work on the list
   * where it lies (the dispatcher's parallel filter chain) instead of on a copy.
   * @defaultValue false
   */
  shared?: boolean;
}

const DEFAULT_READ_CHUNK = 1 << 20;
const DEFAULT_LOAD_CHUNK = 4 << 20;

/**
 * Streams a list file's uins in batches. Memory stays at one read buffer plus
 * one batch however large the file is. The file's length is checked against
 * its header before the first batch (a truncated or padded file fails at once);
 * the body checksum can only be checked at the end, so a consumer must treat
 * the batches as provisional until iteration completes without error.
 *
 * Throws ListFormatError (LIST_BAD_MAGIC, LIST_TRUNCATED, LIST_CHECKSUM_MISMATCH,
 * LIST_UIN_OUT_OF_RANGE, ...) or NotFoundError('LIST_NOT_FOUND').
 */
export async function* readRecipientList(
  path: string,
  options: ReadListOptions,
): AsyncGenerator<Uint32Array, void, undefined> {
  const chunkBytes = positiveInteger('chunkBytes', options.chunkBytes ?? DEFAULT_READ_CHUNK);
  const decoder = new RecipientListDecoder(checkUinLimit(options.uinLimit));
  const handle = await openForRead(path);
  try {
    // The header and the file's length first, as loadRecipientList does, so no
    // body byte is decoded before a truncated or padded file is refused (and
    // both readers give the same code for the same file).
    const { header, size, bytes } = await readHeader(handle);
    if (size !== undefined) checkFileLength(header, size);
    decoder.push(bytes);
    // The decoder copies out of the chunk (uins into a fresh array, a partial
    // uin into its carry), so one buffer serves every read.
    const buffer = Buffer.allocUnsafeSlow(chunkBytes);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const uins = decoder.push(buffer.subarray(0, bytesRead));
      if (uins.length > 0) yield uins;
    }
    finishDecoding(decoder);
  } finally {
    await handle.close();
  }
}

/**
 * Reads and checks a list file's header, and that the file's length matches
 * the count it declares. Does not read the body (no checksum or range check).
 */
export async function readRecipientListHeader(path: string): Promise<ListHeader> {
  const handle = await openForRead(path);
  try {
    const { header, size } = await readHeader(handle);
    if (size !== undefined) checkFileLength(header, size);
    return header;
  } finally {
    await handle.close();
  }
}

/**
 * Reads a whole list into one Uint32Array of exactly `header.count` uins,
 * allocated once up front: the body is read in large chunks, decoded and
 * copied into place, so peak memory is the result plus one chunk. Fails before
 * allocating when the file's length disagrees with its header.
 *
 * Throws like `readRecipientList`.
 */
export async function loadRecipientList(path: string, options: LoadListOptions): Promise<Uint32Array> {
  const chunkBytes = positiveInteger('chunkBytes', options.chunkBytes ?? DEFAULT_LOAD_CHUNK);
  const decoder = new RecipientListDecoder(checkUinLimit(options.uinLimit));
  const handle = await openForRead(path);
  try {
    const { header, size, bytes } = await readHeader(handle);
    if (size !== undefined) checkFileLength(header, size);
    decoder.push(bytes);
    const out =
      options.shared === true
        ? new Uint32Array(new SharedArrayBuffer(header.count * 4))
        : new Uint32Array(header.count);
    // Never more than the body: a small list gets a small buffer.
    const bodyBytes = size === undefined ? chunkBytes : size - LIST_HEADER_BYTES;
    const buffer = Buffer.allocUnsafeSlow(Math.max(1, Math.min(chunkBytes, bodyBytes)));
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      // Decoded where they belong (no batch array, no copy); LIST_TRAILING_BYTES comes before an overrun of `out`.
      filled += decoder.pushInto(buffer.subarray(0, bytesRead), out, filled);
    }
    finishDecoding(decoder);
    return out;
  } finally {
    await handle.close();
  }
}

/**
 * Reads bytes 0..31 and leaves the file position after them. `size` is the
 * file's length for a regular file, undefined for a pipe or device.
 */
async function readHeader(
  handle: FileHandle,
): Promise<{ header: ListHeader; bytes: Buffer; size: number | undefined }> {
  const stat = await handle.stat();
  const bytes = Buffer.alloc(LIST_HEADER_BYTES);
  let got = 0;
  while (got < LIST_HEADER_BYTES) {
    const { bytesRead } = await handle.read(bytes, got, LIST_HEADER_BYTES - got, null);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return { header: decodeListHeader(bytes.subarray(0, got)), bytes, size: stat.isFile() ? stat.size : undefined };
}
