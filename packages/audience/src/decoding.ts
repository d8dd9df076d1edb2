/**
 * Checks shared by every path that reads a list (file reader, loader, upload
 * import), so the same corruption always gives the same ListFormatError code.
 * Internal: not exported from the package.
 */
import { ListFormatError, ValidationError } from '@herald/core';
import { LIST_HEADER_BYTES, UIN_BYTES, type ListHeader, type RecipientListDecoder } from '@herald/core/recipient-list';

/**
 * `decoder.end()`, with one refinement: when every declared uin has arrived
 * and only a few stray bytes (less than one uin) follow, the core decoder
 * reports LIST_TRUNCATED because it cannot tell a partial uin from junk. With
 * the count complete it is junk, so this reports LIST_TRAILING_BYTES, the same
 * code a whole extra uin gets.
 */
export function finishDecoding(decoder: RecipientListDecoder): ListHeader {
  try {
    return decoder.end();
  } catch (error) {
    const header = decoder.listHeader;
    if (
      error instanceof ListFormatError &&
      error.code === 'LIST_TRUNCATED' &&
      header !== undefined &&
      decoder.decoded === header.count
    ) {
      throw new ListFormatError(
        'LIST_TRAILING_BYTES',
        `recipient list has bytes after the ${header.count} uins its header declares`,
        {
          declared: header.count,
        },
      );
    }
    throw error;
  }
}

/** Bytes a valid file with this header has. */
export function listBytes(count: number): number {
  return LIST_HEADER_BYTES + count * UIN_BYTES;
}

/**
 * Compares a regular file's size with what its header declares, so a
 * truncated or padded file fails before its body is read, with the codes the
 * streaming decoder would give at the end.
 */
export function checkFileLength(header: ListHeader, size: number): void {
  const expected = listBytes(header.count);
  if (size < expected) {
    throw new ListFormatError(
      'LIST_TRUNCATED',
      `recipient list is truncated: header declares ${header.count} uins (${expected} bytes), file has ${size} bytes`,
      {
        declared: header.count,
        expectedBytes: expected,
        bytes: size,
      },
    );
  }
  if (size > expected) {
    throw new ListFormatError(
      'LIST_TRAILING_BYTES',
      `recipient list has ${size - expected} bytes after the ${header.count} uins its header declares`,
      {
        declared: header.count,
        expectedBytes: expected,
        bytes: size,
      },
    );
  }
}

/** uinLimit is 2^uinSpaceBits: an integer in [1, 2^32]. */
export function checkUinLimit(uinLimit: number): number {
  if (!Number.isSafeInteger(uinLimit) || uinLimit < 1 || uinLimit > 2 ** 32) {
    throw new ValidationError(`uinLimit must be an integer in [1, 2^32], got ${uinLimit}`, {
      option: 'uinLimit',
      value: uinLimit,
    });
  }
  return uinLimit;
}
