import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { AdapterLifecycle } from '@herald/core/adapter';
import { ErrorCodes, HeraldError, isHeraldError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@herald/core';

interface LevelErrorLike {
  code?: unknown;
  message?: unknown;
}

/** Turns whatever the Level stack threw into a HeraldError; HeraldErrors pass through. */
export function toHeraldError(error: unknown, store: string, op: string): HeraldError {
  if (isHeraldError(error)) return error;
  const code = (error as LevelErrorLike | null)?.code;
  if (code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_ITERATOR_NOT_OPEN') {
    return new HeraldError(ErrorCodes.STORE_CLOSED, `${store}.${op}: the store is closed`, { cause: error });
  }
  const message = (error as LevelErrorLike | null)?.message;
  return new HeraldError(
    ErrorCodes.INTERNAL,
    `${store}.${op} failed: ${typeof message === 'string' ? message : String(error)}`,
    {
      cause: error,
      details: { levelCode: typeof code === 'string' ? code : undefined },
    },
  );
}

/**
 * Open/closed bookkeeping for a Level store (the core AdapterLifecycle with
 * Level's error translation): every public call runs through `run`, which
 * refuses calls after close with STORE_CLOSED, translates Level errors, and
 * tracks the call so that `close` waits for calls already in flight before
 * closing the database.
 */
export class Lifecycle extends AdapterLifecycle {
  constructor(store: string) {
    super({ name: store, translate: (error, op) => toHeraldError(error, store, op) });
  }
}

/**
 * Opens (creating if needed) the LevelDB of one store in directory `path`,
 * keys and values as Buffers. UNAVAILABLE when it cannot: most often another
 * process holds the directory (LevelDB's LOCK file).
 */
export async function openLevelDb(path: string, store: string): Promise<ClassicLevel<Buffer, Buffer>> {
  await makePrivateDir(path);
  const db = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    await db.open();
  } catch (error) {
    throw new HeraldError(ErrorCodes.UNAVAILABLE, `${store}: cannot open ${path} (is another process using it?)`, {
      cause: error,
    });
  }
  await makeFilesPrivate(path);
  return db;
}

/**
 * The store's directory (and any parent it creates) is its user's only
 * (docs/security.md). LevelDB creates its files with the process umask,
 * which Herald cannot pass a mode to: the 0700 directory keeps them from
 * other users whatever their mode, and `herald` runs with umask 0077.
 */
export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(path, PRIVATE_DIR_MODE);
}

/** The files LevelDB has made so far (LOCK, CURRENT, MANIFEST, logs, tables) set to 0600. */
export async function makeFilesPrivate(path: string): Promise<void> {
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isFile()) await chmod(join(path, entry.name), PRIVATE_FILE_MODE).catch(() => undefined); // a log LevelDB just removed
  }
}
