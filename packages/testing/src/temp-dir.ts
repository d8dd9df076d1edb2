import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** Absolute path of the new, empty directory. */
  readonly path: string;
  /** Deletes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

/** Creates a fresh directory under os.tmpdir(), named `<prefix>XXXXXX`, for one test's files. */
export async function makeTempDir(prefix = 'herald-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
