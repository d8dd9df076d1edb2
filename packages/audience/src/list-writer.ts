/**
 * Writing recipient-list files. Both writers build the file under
 * `path + '.tmp'` and rename it into place only when it is complete and
 * fsynced, so the final name never holds half a list: after a crash there is
 * at worst a stray `.tmp` file, never a damaged list.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ErrorCodes, HeraldError, PRIVATE_FILE_MODE } from '@herald/core';
import { LIST_HEADER_BYTES, RecipientListEncoder, UIN_BYTES } from '@herald/core/recipient-list';
import { listBytes } from './decoding';
import { publish, removeQuietly, writeFully } from './fs-util';
import { checkFlags, OrderTracker } from './order';

/** What was written. */
export interface WrittenList {
  count: number;
  /** CRC-32 of the body: the header's bodyCrc. */
  checksum: number;
  /** File size: header plus 8 bytes per uin. */
  bytes: number;
}

/** Uins encoded per buffer: 8 MiB of body. Bounds the memory a large `write` takes. */
const SLICE_UINS = 1 << 20;

/**
 * Streams a list to disk batch by batch, for lists built incrementally (the
 * filter chain's output, a query's result). Count and checksum are kept as
 * the body goes out; `close` writes the real header over the placeholder.
 *
 * @example
 *   const writer = await RecipientListWriter.create('/data/lists/l_x.hrl');
 *   try {
 *     for await (const batch of source) await writer.write(batch);
 *     const { count } = await writer.close(ListFlags.SORTED | ListFlags.UNIQUE);
 *   } catch (error) {
 *     await writer.abort();
 *     throw error;
 *   }
 *
 * Await each `write` before the next: it resolves once the stream can take
 * more, which is how a fast producer is held back to disk speed. If a write
 * or close fails on I/O, the writer removes its temp file itself; `abort` is
 * then a no-op, and always safe to call.
 */
export class RecipientListWriter {
  readonly tempPath: string;
  private readonly encoder = new RecipientListEncoder();
  private readonly order = new OrderTracker();
  private state: 'open' | 'closing' | 'closed' | 'aborted' = 'open';
  private failure: Error | undefined;
  private writing = false;

  private constructor(
    readonly path: string,
    private readonly stream: WriteStream,
  ) {
    this.tempPath = `${path}.tmp`;
    // Keep the error for the next call; without a listener it would crash the process.
    stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  /** Opens `path + '.tmp'` (replacing a stale one) and writes the placeholder header. */
  static async create(path: string): Promise<RecipientListWriter> {
    const stream = createWriteStream(`${path}.tmp`, { flags: 'w', mode: PRIVATE_FILE_MODE, highWaterMark: 1 << 20 });
    const writer = new RecipientListWriter(path, stream);
    try {
      await once(stream, 'open');
      await writer.push(Buffer.alloc(LIST_HEADER_BYTES));
    } catch (error) {
      await writer.abort();
      throw error;
    }
    return writer;
  }

  /** Uins written so far. */
  get count(): number {
    return this.encoder.encoded;
  }

  /** Appends uins; resolves when the stream has room for more. */
  async write(uins: Uint32Array): Promise<void> {
    this.assertOpen('write');
    this.writing = true;
    try {
      for (let start = 0; start < uins.length; start += SLICE_UINS) {
        const slice = uins.subarray(start, Math.min(start + SLICE_UINS, uins.length));
        this.order.update(slice);
        await this.push(this.encoder.body(slice));
      }
    } catch (error) {
      await this.abort();
      throw error;
    } finally {
      this.writing = false;
    }
  }

  /**
   * Finishes the body, writes the real header at offset 0, fsyncs and renames
   * the temp file to `path`. `flags` (ListFlags) must be true of the uins
   * written: a false SORTED or UNIQUE claim (or an unknown bit) is a
   * ValidationError thrown before anything happens, leaving the writer open.
   * An I/O failure removes the temp file.
   */
  async close(flags = 0): Promise<WrittenList> {
    this.assertOpen('close');
    // Argument checks first: a wrong flag leaves the writer open and untouched.
    checkFlags(flags);
    this.order.verify(flags);
    this.state = 'closing';
    let handle: FileHandle | undefined;
    try {
      this.assertNotFailed(); // a failed stream is already closed: waiting for 'close' would hang
      this.stream.end();
      await once(this.stream, 'close');
      this.assertNotFailed();
      const header = this.encoder.header(flags);
      handle = await open(this.tempPath, 'r+');
      await writeFully(handle, header, 0);
      await publish(handle, this.tempPath, this.path);
      this.state = 'closed';
      return { count: this.encoder.encoded, checksum: header.readUInt32LE(16), bytes: listBytes(this.encoder.encoded) };
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await this.discard();
      throw error;
    }
  }

  /** Stops writing and removes the temp file. Idempotent; a no-op after a successful close. */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    await this.discard();
  }

  private async discard(): Promise<void> {
    this.state = 'aborted';
    if (!this.stream.closed) {
      const closed = once(this.stream, 'close').catch(() => undefined);
      this.stream.destroy();
      await closed;
    }
    await removeQuietly(this.tempPath);
  }

  private async push(bytes: Buffer): Promise<void> {
    this.assertNotFailed();
    if (!this.stream.write(bytes)) await this.drained();
    this.assertNotFailed();
  }

  private assertNotFailed(): void {
    // An abort destroys the stream, which fails its pending writes: report the abort, not that.
    if (this.state === 'aborted')
      throw new HeraldError(ErrorCodes.INTERNAL, `RecipientListWriter: aborted during write (${this.path})`);
    if (this.failure) throw this.failure;
  }

  /**
   * Resolves on 'drain', on 'error' (kept in `failure` by the constructor's
   * listener) or on 'close' (an abort destroyed the stream mid-write); the
   * caller then checks which.
   */
  private drained(): Promise<void> {
    const stream = this.stream;
    return new Promise<void>((resolve) => {
      const settle = (): void => {
        stream.off('drain', settle).off('close', settle).off('error', settle);
        resolve();
      };
      stream.on('drain', settle).on('close', settle).on('error', settle);
    });
  }

  private assertOpen(operation: string): void {
    if (this.state !== 'open' || this.writing) {
      const state = this.writing ? 'busy with a write that has not resolved' : this.state;
      throw new HeraldError(
        ErrorCodes.INTERNAL,
        `RecipientListWriter ${operation}: the writer is ${state} (${this.path})`,
        {
          details: { path: this.path, state },
        },
      );
    }
  }
}

/**
 * Writes a whole in-memory list in one go: large encoded buffers written at
 * known offsets, no stream. Same temp-file-and-rename guarantee as
 * RecipientListWriter, same check of `flags` against the uins.
 */
export async function writeRecipientListFile(path: string, uins: Uint32Array, flags = 0): Promise<WrittenList> {
  checkFlags(flags);
  const order = new OrderTracker();
  order.update(uins);
  order.verify(flags);
  // A temp file of its own: two writers of the same list (a pre-processing asked for again while the
  // first run is still going) must never write into one file; the last rename wins, whole either way.
  const tempPath = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tempPath, 'w', PRIVATE_FILE_MODE);
  try {
    const encoder = new RecipientListEncoder();
    // Two buffers taking turns: a slice is encoded into one while the one before is being written from the
    // other (the write runs on libuv's threads), so encoding and writing overlap.
    const room = Math.max(1, Math.min(SLICE_UINS, uins.length)) * UIN_BYTES;
    const scratch = [Buffer.allocUnsafeSlow(room), Buffer.allocUnsafeSlow(room)];
    let position = LIST_HEADER_BYTES;
    let writing: Promise<void> = Promise.resolve();
    for (let start = 0, turn = 0; start < uins.length; start += SLICE_UINS, turn ^= 1) {
      const body = encoder.bodyInto(uins.subarray(start, Math.min(start + SLICE_UINS, uins.length)), scratch[turn]!);
      // The buffer just encoded into was last written two slices ago, and that write has been awaited.
      await writing;
      writing = writeFully(handle, body, position);
      // Awaited before anything else can fail; until then, a failed write must not count as unhandled.
      writing.catch(() => undefined);
      position += body.length;
    }
    await writing;
    const header = encoder.header(flags);
    await writeFully(handle, header, 0);
    await publish(handle, tempPath, path);
    return { count: uins.length, checksum: header.readUInt32LE(16), bytes: position };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await removeQuietly(tempPath);
    throw error;
  }
}
