import { open } from 'node:fs/promises';
import { LIST_HEADER_BYTES, UIN_BYTES } from '@herald/core/recipient-list';
import { ListFormatError } from '@herald/core';

/**
 * Reads recipients [from, end) of a recipient-list file in batches, by
 * position, without reading the rest of the file: a resumed unit starts at its
 * checkpoint. The file was validated when it was written, but a uin with its
 * high word set is still refused rather than truncated.
 */
export async function* readListRange(
  path: string,
  from: number,
  end: number,
  batchSize: number,
): AsyncGenerator<Uint32Array> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(batchSize * UIN_BYTES);
    const words = new Uint32Array(buffer.buffer, buffer.byteOffset, batchSize * 2);
    for (let offset = from; offset < end; offset += batchSize) {
      const n = Math.min(batchSize, end - offset);
      const { bytesRead } = await file.read(buffer, 0, n * UIN_BYTES, LIST_HEADER_BYTES + offset * UIN_BYTES);
      if (bytesRead < n * UIN_BYTES)
        throw new ListFormatError('LIST_TRUNCATED', `${path} ends before recipient ${end}`);
      const batch = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        if (words[2 * i + 1] !== 0)
          throw new ListFormatError('LIST_UIN_OUT_OF_RANGE', `${path}: uin at ${offset + i} exceeds 32 bits`);
        batch[i] = words[2 * i]!;
      }
      yield batch;
    }
  } finally {
    await file.close();
  }
}
