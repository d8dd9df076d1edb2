import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_BITMAP_FILE = 'herald-online.bitmap';

/**
 * Where the bitmap lives unless configured: /dev/shm (tmpfs, so the file is
 * memory and never written back to a disk) when the host has it, else the
 * temporary directory.
 */
export function defaultBitmapPath(): string {
  const shm = statSync('/dev/shm', { throwIfNoEntry: false });
  return join(shm?.isDirectory() ? '/dev/shm' : tmpdir(), DEFAULT_BITMAP_FILE);
}
