/**
 * The online bitmap in shared memory: one file (under /dev/shm by default)
 * mapped MAP_SHARED by every process on the host, so the host holds one
 * physical copy of the 512 MiB bitmap whatever the number of executors.
 *
 * One writer (the presence agent) maps it read-write and holds an exclusive
 * flock on it for as long as it is open; any number of readers (executors)
 * map it read-only (PROT_READ: a store through a reader's mapping is a
 * SIGSEGV, not a silent change).
 *
 * Memory ordering. The writer changes one bit with a plain read-modify-write
 * of its aligned 32-bit word (TypedArrayBitmap.setOnline); readers do plain
 * 32-bit loads. That is enough, without atomics or fences, because:
 *   - there is one writer (the flock makes a second one fail to open), so no
 *     two read-modify-writes of a word can interleave and lose a bit;
 *   - an aligned 32-bit load or store is single-copy atomic on x86-64 (and on
 *     arm64): a reader sees the word before or after a store, never a torn mix;
 *   - each uin's bit means something on its own: no reader needs two words (or
 *     the header and a word) to change together, so the order in which other
 *     cores see stores to different words does not matter (x86-64's TSO keeps
 *     the writer's order anyway; arm64 may not, and nothing relies on it);
 *   - a store leaves the writer's store buffer within nanoseconds, and V8
 *     reloads typed-array elements on every call (it may keep a loaded word
 *     within one partition() call, which is still a value the word held).
 * So a reader sees a login "soon" (well under a millisecond), and a partition()
 * running while logins arrive sorts each uin by some recent value of its bit:
 * the same guarantee presence could ever give, since the login event itself
 * may be in flight. The header is written before the file is linked into
 * place (see createFile), so a reader can never see a half-written header.
 */
import { linkSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { HeraldError } from '@herald/core';
import { TypedArrayBitmap, type OnlineBitmap, type OnlineView } from '@herald/core/presence';
import { SharedBitmapError, osError } from './errors';
import {
  HEADER_BYTES,
  bitmapFileBytes,
  checkUinLimit,
  markWriterOpen,
  readHeader,
  writeHeader,
  type BitmapHeader,
} from './format';
import { native, type Advice } from './native';

/** The writer's handle: an OnlineBitmap over the shared file. */
export interface SharedBitmapWriter extends OnlineBitmap {
  readonly path: string;
  /** True if this open created the file (all offline), false if it found one and kept its bits. */
  readonly created: boolean;
  /** Unmaps the file and releases the writer lock. Idempotent; any later call throws CLOSED. */
  close(): void;
}

/** A reader's handle: lookups only. */
export interface SharedBitmapReader extends OnlineView {
  readonly path: string;
  readonly uinLimit: number;
  /** Unmaps the file. Idempotent; any later call throws CLOSED. */
  close(): void;
}

export interface SharedBitmapOptions {
  /**
   * madvise for the mapping. Default: none (the kernel's default). See
   * docs/shared-bitmap.md for what was measured.
   */
  advice?: Advice;
}

/** What `inspect` reports about a bitmap file. */
export interface BitmapInfo extends BitmapHeader {
  readonly path: string;
  readonly fileBytes: number;
  /** Uins online now (a popcount over every word). */
  readonly online: number;
}

/** Attempts at "open, else create" before giving up on a file that keeps appearing and vanishing. */
const OPEN_ATTEMPTS = 3;

/**
 * Opens the bitmap for writing, creating it if there is none: a new file is
 * built under a temporary name (sized with posix_fallocate, so a too-small
 * /dev/shm fails here and not with a SIGBUS later, header written) and then
 * linked into place. An existing file with the same uinLimit keeps its bits:
 * a restarted presence agent carries on where it stopped. The directory must
 * exist.
 */
function openWriter(path: string, uinLimit: number, options: SharedBitmapOptions = {}): SharedBitmapWriter {
  checkUinLimit(uinLimit, path);
  const dir = dirname(path);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new SharedBitmapError(
      'NO_DIRECTORY',
      path,
      `directory ${dir} does not exist (create it, or configure another path)`,
      { details: { setting: 'path' } },
    );
  }
  const { WRITABLE, LOCK } = native().flags;
  let created = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const buffer = native().map(path, WRITABLE | LOCK, 0);
      return new Writer(path, buffer, checkedHeader(buffer, path, uinLimit), created, options);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw mapError(path, error);
    }
    if (attempt === OPEN_ATTEMPTS) {
      throw new SharedBitmapError(
        'OS_ERROR',
        path,
        `the file kept disappearing over ${OPEN_ATTEMPTS} attempts to open or create it`,
      );
    }
    created = createFile(path, uinLimit);
  }
}

/**
 * Creates a new file under a temporary name and links it into place, so no
 * reader ever sees it before its header is complete. Losing the race to
 * another creator (EEXIST) is fine: the caller opens whichever file is there.
 * The caller maps the file again by its real name, which is the name
 * /proc/<pid>/maps then shows.
 */
function createFile(path: string, uinLimit: number): boolean {
  const { WRITABLE, CREATE } = native().flags;
  const temporary = `${path}.${process.pid}.creating`;
  rmSync(temporary, { force: true });
  try {
    const buffer = native().map(temporary, WRITABLE | CREATE, bitmapFileBytes(uinLimit));
    try {
      writeHeader(new Uint8Array(buffer, 0, HEADER_BYTES), uinLimit, Date.now(), process.pid);
    } finally {
      native().unmap(buffer);
    }
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw mapError(path, error);
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Opens an existing bitmap read-only. Without `uinLimit` it takes the file's. */
function openReader(path: string, uinLimit?: number, options: SharedBitmapOptions = {}): SharedBitmapReader {
  return openReaderOf(path, uinLimit, options);
}

function openReaderOf(path: string, uinLimit: number | undefined, options: SharedBitmapOptions): Reader {
  if (uinLimit !== undefined) checkUinLimit(uinLimit, path);
  let buffer: ArrayBuffer;
  try {
    buffer = native().map(path, 0, 0);
  } catch (error) {
    if (codeOf(error) === 'ENOENT')
      throw new SharedBitmapError('NOT_FOUND', path, 'no such file (has the presence agent created it?)', {
        cause: error,
      });
    throw mapError(path, error);
  }
  return new Reader(path, buffer, checkedHeader(buffer, path, uinLimit), options);
}

/** The header and online count of a bitmap file, for operators and tests. */
function inspect(path: string): BitmapInfo {
  const reader = openReaderOf(path, undefined, {});
  try {
    return { path, ...reader.header, fileBytes: reader.fileBytes, online: reader.countOnline() };
  } finally {
    reader.close();
  }
}

/** Opening a shared online bitmap: one writer per host, any number of readers. */
export const SharedOnlineBitmap = Object.freeze({ openWriter, openReader, inspect });

function checkedHeader(buffer: ArrayBuffer, path: string, uinLimit: number | undefined): BitmapHeader {
  try {
    return readHeader(new Uint8Array(buffer), path, uinLimit);
  } catch (error) {
    native().unmap(buffer);
    throw error;
  }
}

function wordsOf(buffer: ArrayBuffer, header: BitmapHeader): Uint32Array {
  return new Uint32Array(buffer, HEADER_BYTES, header.wordCount);
}

function advise(buffer: ArrayBuffer, path: string, advice: Advice | undefined): void {
  if (advice === undefined) return;
  try {
    native().advise(buffer, advice);
  } catch (error) {
    native().unmap(buffer);
    throw mapError(path, error);
  }
}

/** Stands in for the bitmap after close(): every call throws, and the open path pays nothing for the check. */
class ClosedBitmap implements OnlineBitmap {
  constructor(
    readonly uinLimit: number,
    private readonly path: string,
  ) {}
  isOnline(): boolean {
    throw this.closed();
  }
  setOnline(): void {
    throw this.closed();
  }
  clearAll(): void {
    throw this.closed();
  }
  partition(): { online: number; offline: number } {
    throw this.closed();
  }
  private closed(): HeraldError {
    return new SharedBitmapError('CLOSED', this.path, 'used after close()');
  }
}

class Writer implements SharedBitmapWriter {
  #bitmap: OnlineBitmap;
  #buffer: ArrayBuffer | undefined;

  constructor(
    readonly path: string,
    buffer: ArrayBuffer,
    header: BitmapHeader,
    readonly created: boolean,
    options: SharedBitmapOptions,
  ) {
    advise(buffer, path, options.advice);
    markWriterOpen(new Uint8Array(buffer, 0, HEADER_BYTES), Date.now(), process.pid);
    this.#buffer = buffer;
    this.#bitmap = new TypedArrayBitmap(header.uinLimit, wordsOf(buffer, header));
  }

  get uinLimit(): number {
    return this.#bitmap.uinLimit;
  }

  isOnline(uin: number): boolean {
    return this.#bitmap.isOnline(uin);
  }

  setOnline(uin: number, online: boolean): void {
    this.#bitmap.setOnline(uin, online);
  }

  clearAll(): void {
    this.#bitmap.clearAll();
  }

  partition(
    uins: Uint32Array,
    online: Uint32Array,
    offline: Uint32Array,
    onlineBits?: Uint8Array,
  ): { online: number; offline: number } {
    return this.#bitmap.partition(uins, online, offline, onlineBits);
  }

  close(): void {
    if (this.#buffer === undefined) return;
    this.#bitmap = new ClosedBitmap(this.#bitmap.uinLimit, this.path);
    native().unmap(this.#buffer);
    this.#buffer = undefined;
  }
}

class Reader implements SharedBitmapReader {
  #view: OnlineView;
  #buffer: ArrayBuffer | undefined;
  readonly uinLimit: number;
  readonly fileBytes: number;

  constructor(
    readonly path: string,
    buffer: ArrayBuffer,
    readonly header: BitmapHeader,
    options: SharedBitmapOptions,
  ) {
    advise(buffer, path, options.advice);
    this.#buffer = buffer;
    this.uinLimit = header.uinLimit;
    this.fileBytes = buffer.byteLength;
    // TypedArrayBitmap's setOnline is unreachable from here (#view is private and typed as a view);
    // were it reached, the store would hit a PROT_READ page and the process would die of SIGSEGV.
    this.#view = new TypedArrayBitmap(header.uinLimit, wordsOf(buffer, header));
  }

  isOnline(uin: number): boolean {
    return this.#view.isOnline(uin);
  }

  partition(
    uins: Uint32Array,
    online: Uint32Array,
    offline: Uint32Array,
    onlineBits?: Uint8Array,
  ): { online: number; offline: number } {
    return this.#view.partition(uins, online, offline, onlineBits);
  }

  /** Popcount over every word. */
  countOnline(): number {
    if (this.#buffer === undefined) throw new SharedBitmapError('CLOSED', this.path, 'used after close()');
    const words = wordsOf(this.#buffer, this.header);
    let count = 0;
    for (let i = 0; i < words.length; i++) {
      let v = words[i]!;
      v = v - ((v >>> 1) & 0x55555555);
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      count += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    return count;
  }

  close(): void {
    if (this.#buffer === undefined) return;
    this.#view = new ClosedBitmap(this.uinLimit, this.path);
    native().unmap(this.#buffer);
    this.#buffer = undefined;
  }
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** Errors from the addon or fs become SharedBitmapErrors; a held writer lock gets its own reason. */
function mapError(path: string, error: unknown): HeraldError {
  if (error instanceof HeraldError) return error;
  const code = codeOf(error);
  if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
    return new SharedBitmapError(
      'WRITER_EXISTS',
      path,
      'another writer holds the lock on this file (is another presence agent running on this host?)',
      { cause: error },
    );
  }
  return osError(path, error);
}
