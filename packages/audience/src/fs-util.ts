/**
 * Small file-system helpers shared by the reader, the writer and the
 * repository. Internal: not exported from the package.
 */
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NotFoundError, ValidationError } from '@herald/core';

/** Opens a list file for reading; a missing file is a NotFoundError('LIST_NOT_FOUND'). */
export async function openForRead(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if (isErrno(error, 'ENOENT'))
      throw new NotFoundError('LIST_NOT_FOUND', `recipient list ${path} does not exist`, { path });
    throw error;
  }
}

/** Reads `length` bytes at `position` into the start of `into`, looping over short reads; fewer only at the end of the file. */
export async function readFully(
  handle: FileHandle,
  into: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(into, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** Writes all of `bytes` at `position`, looping over short writes. */
export async function writeFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

/**
 * Publishes a finished temp file under its final name: fsync the data, rename
 * (atomic within a directory), then fsync the directory so the rename itself
 * survives a power cut. Readers see either no file or the whole file.
 */
export async function publish(handle: FileHandle, tempPath: string, finalPath: string): Promise<void> {
  await handle.sync();
  await handle.close();
  await rename(tempPath, finalPath);
  await syncDirectory(dirname(finalPath));
}

/** Best effort: some platforms (Windows) cannot open or fsync a directory. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // The rename is done; only its durability across a power cut is weaker here.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Deletes a file if it is there; never throws (used on error paths). */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

export function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** Checks a positive-integer option (sizes, limits) and names it when it is wrong. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ValidationError(`${name} must be a positive integer, got ${value}`, { option: name, value });
  return value;
}

/**
 * Appends chunks to a file through one reusable buffer, so a stream of small
 * chunks (an HTTP body arrives in 16-64 KiB pieces) becomes a few large
 * writes. Large chunks are written straight through.
 */
export class CoalescingWriter {
  private readonly buffer: Buffer;
  private used = 0;
  private position: number;

  constructor(
    private readonly handle: FileHandle,
    startPosition = 0,
    bufferBytes = 1 << 20,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(bufferBytes);
    this.position = startPosition;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength > this.buffer.length - this.used) {
      await this.flush();
      if (chunk.byteLength >= this.buffer.length) {
        await writeFully(this.handle, chunk, this.position);
        this.position += chunk.byteLength;
        return;
      }
    }
    this.buffer.set(chunk, this.used);
    this.used += chunk.byteLength;
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await writeFully(this.handle, this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }
}
