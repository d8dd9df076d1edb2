/**
 * The directory where uploaded and derived recipient lists live, one file per
 * list: `<root>/<id>.hrl`. Uploads are validated while they stream in and
 * only appear under their id once they are complete and intact.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeListHeader, RecipientListDecoder } from '@herald/core/recipient-list';
import { ListFormatError, ValidationError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@herald/core';
import { systemClock, type Clock } from '@herald/core/ports';
import type { ListMeta } from '@herald/core/task';
import { checkUinLimit, finishDecoding, listBytes } from './decoding';
import { CoalescingWriter, isErrno, positiveInteger, publish, removeQuietly, writeFully } from './fs-util';
import { OrderTracker } from './order';
import { convertTextList, type TextImportPolicy } from './text-import';
import type { TextListOptions, TextListReport } from './text-list';

export interface ListRepositoryOptions {
  /** Source of `createdAt` and of the time part of new ids. @defaultValue systemClock */
  clock?: Clock;
}

export interface ImportListOptions {
  /** Owner recorded in the returned ListMeta. */
  accountId: string;
  /** Uins must lie in [0, uinLimit): 2^uinSpaceBits, at most 2^32. */
  uinLimit: number;
  /** Largest upload accepted, header included; more is a ValidationError. */
  maxBytes: number;
}

/** What importText takes: ImportListOptions, the text grammar's options and the bad-line policy. */
export interface ImportTextListOptions extends ImportListOptions, Omit<TextListOptions, 'uinLimit'>, TextImportPolicy {}

/** An accepted text import: the stored list, and what the parser counted (bad lines by reason). */
export interface TextListImport {
  meta: ListMeta;
  /** Bytes of text uploaded (`meta.bytes` is the size of the binary file stored). */
  uploadBytes: number;
  report: TextListReport;
}

/** A list id: one lowercase letter, '_', then lowercase letters, digits and '_'. Never a path. */
const LIST_ID = /^[a-z]_[a-z0-9_]{1,64}$/;
const LIST_SUFFIX = '.hrl';

/**
 * @example
 *   const lists = new ListRepository('/var/lib/herald/lists');
 *   const meta = await lists.importStream(request, { accountId: 'acme', uinLimit: 2 ** 32, maxBytes: 8 * 2 ** 30 });
 *   for await (const batch of readRecipientList(lists.pathOf(meta.id), { uinLimit: 2 ** 32 })) use(batch);
 */
export class ListRepository {
  /** Stamps `createdAt` of the lists stored here (importFromSource uses it too). */
  readonly clock: Clock;

  constructor(
    readonly root: string,
    options: ListRepositoryOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /** `<root>/<id>.hrl`. Throws ValidationError for anything that is not a list id. */
  pathOf(id: string): string {
    if (typeof id !== 'string' || !LIST_ID.test(id)) {
      throw new ValidationError(`'${String(id).slice(0, 80)}' is not a list id`, { id: String(id).slice(0, 80) });
    }
    return join(this.root, id + LIST_SUFFIX);
  }

  /**
   * A fresh id: `<prefix>_` + milliseconds in base 36 + 12 random hex digits,
   * e.g. `l_m3x1q2a8_9f0c6e21b4d7`. Ids sort roughly by creation time.
   */
  newId(prefix = 'l'): string {
    if (!/^[a-z]$/.test(prefix))
      throw new ValidationError(`list id prefix must be one lowercase letter, got '${prefix}'`, { prefix });
    return `${prefix}_${Math.max(0, Math.floor(this.clock.now())).toString(36)}_${randomBytes(6).toString('hex')}`;
  }

  async exists(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    try {
      return (await stat(path)).isFile();
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /** Deletes a list. Returns false when there was none. */
  async remove(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    try {
      await unlink(path);
      return true;
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /**
   * Stores an uploaded binary list under a new id, checking it as it streams
   * in: magic, version, header, every uin inside [0, uinLimit), the count and
   * the body checksum, and the size limit. It learns on the way whether the
   * uins are sorted and unique, and stores a header whose flags say what was
   * found (an uploader's flags are not trusted).
   *
   * Constant memory, one pass: chunks are checked, then gathered into 1 MiB
   * writes; the next chunk is pulled only once the last is checked and
   * buffered or written, so a fast client is held to disk speed. The list appears under its id only
   * when fully valid; on any error the temp file is deleted and the error
   * rethrown: ListFormatError (core codes, plus LIST_EMPTY for a list of no
   * uins), ValidationError (over `maxBytes`, or text instead of bytes), or the
   * source's own error. A Node stream source is destroyed when the import
   * fails.
   */
  async importStream(
    source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream,
    options: ImportListOptions,
  ): Promise<ListMeta> {
    const maxBytes = positiveInteger('maxBytes', options.maxBytes);
    if (typeof options.accountId !== 'string' || options.accountId.length === 0)
      throw new ValidationError('accountId must be a non-empty string');
    const decoder = new RecipientListDecoder(checkUinLimit(options.uinLimit));
    const order = new OrderTracker();
    const id = this.newId();
    const finalPath = this.pathOf(id);
    const tempPath = `${finalPath}.tmp`;
    await mkdir(this.root, { recursive: true, mode: PRIVATE_DIR_MODE });
    const handle = await open(tempPath, 'wx', PRIVATE_FILE_MODE);
    try {
      const file = new CoalescingWriter(handle);
      let bytes = 0;
      let sizeChecked = false;
      for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
        if (typeof chunk === 'string')
          throw new ValidationError(
            'recipient list upload must be binary, got text (is an encoding set on the stream?)',
          );
        bytes += chunk.byteLength;
        if (bytes > maxBytes) throw tooLarge(maxBytes, bytes);
        order.update(decoder.push(chunk));
        const header = decoder.listHeader;
        if (!sizeChecked && header !== undefined) {
          // Refuse at once a header that declares more than the limit allows.
          if (listBytes(header.count) > maxBytes) throw tooLarge(maxBytes, listBytes(header.count));
          sizeChecked = true;
        }
        await file.write(chunk);
      }
      await file.flush();
      const header = finishDecoding(decoder);
      if (header.count === 0) throw new ListFormatError('LIST_EMPTY', 'recipient list holds no uins');
      if (header.flags !== order.flags) {
        await writeFully(
          handle,
          encodeListHeader({ flags: order.flags, count: header.count, bodyCrc: header.bodyCrc }),
          0,
        );
      }
      await publish(handle, tempPath, finalPath);
      return {
        id,
        accountId: options.accountId,
        count: header.count,
        checksum: header.bodyCrc,
        sorted: order.sorted,
        unique: order.unique,
        bytes,
        createdAt: this.clock.now(),
      };
    } catch (error) {
      await handle.close().catch(() => undefined); // a second close is harmless
      await removeQuietly(tempPath);
      throw error;
    }
  }

  /**
   * Stores a text or CSV upload (one uin per line, or one column of a CSV;
   * docs/recipient-list-format.md) as a binary list under a new id, converting
   * it as it streams in, in bounded memory. Bad lines are counted by reason;
   * when they exceed `maxBadRatio` of the lines, or no line holds a uin, the
   * upload is rejected with ListFormatError('LIST_TOO_MANY_BAD_LINES', details:
   * the counts and the first bad lines) and nothing is kept. Also throws
   * LIST_EMPTY (nothing but blank lines), ValidationError (bad options, a
   * named column missing from the header, over `maxBytes` of text).
   */
  async importText(
    source: AsyncIterable<Uint8Array | string> | NodeJS.ReadableStream,
    options: ImportTextListOptions,
  ): Promise<TextListImport> {
    if (typeof options.accountId !== 'string' || options.accountId.length === 0)
      throw new ValidationError('accountId must be a non-empty string');
    const id = this.newId();
    await mkdir(this.root, { recursive: true, mode: PRIVATE_DIR_MODE });
    const converted = await convertTextList(source as AsyncIterable<Uint8Array | string>, this.pathOf(id), options);
    const meta: ListMeta = {
      id,
      accountId: options.accountId,
      count: converted.written.count,
      checksum: converted.written.checksum,
      sorted: converted.sorted,
      unique: converted.unique,
      bytes: converted.written.bytes,
      createdAt: this.clock.now(),
    };
    return { meta, uploadBytes: converted.uploadBytes, report: converted.report };
  }
}

function tooLarge(maxBytes: number, bytes: number): ValidationError {
  return new ValidationError(`recipient list upload is larger than the ${maxBytes}-byte limit`, { maxBytes, bytes });
}
