import { open, type FileHandle } from 'node:fs/promises';
import {
  decodeRemovedHeader,
  removedHeaderBytes,
  removedSectionCount,
  type RemovalFacts,
  type RemovedSection,
} from '@herald/core/fate';
import { ListFormatError } from '@herald/core';
import { readRecipientList } from './list-reader';

/** One recipient of a task's audience as the walk meets it. */
export interface WalkedRecipient {
  uin: number;
  /** Its position in the filtered list, when it is there. */
  position: number | undefined;
  /** As removalOf answers it for this uin. */
  removal: RemovalFacts;
}

export interface AudienceWalkOptions {
  uinLimit: number;
  /** Start after this uin (a report's cursor); the walk still counts positions from the list's start. */
  after?: number;
  /**
   * A canary task's list (docs/rollouts.md): two ascending runs, positions
   * [0, sample) and [sample, count). The walk merges them, so rows stay in
   * uin order with each uin's own position.
   */
  sample?: number;
}

/** Uins read from a removed set at a time: 256 KiB per section. */
const SECTION_CHUNK = 1 << 16;

/**
 * Every distinct uin of a task's audience, ascending (the filtered list's
 * order), each once with the facts the per-recipient lookup would find: a
 * merge of the filtered list and each link's removed set, all sorted, read a
 * chunk at a time, so memory stays at one chunk per file whatever the list's
 * size (docs/recipient-truth.md, "The delivery report"). No removed-sets
 * file (a task filtered before the record): only the filtered list's uins,
 * each with `removal: { recorded: false }`.
 */
export async function* walkAudience(
  filteredListPath: string,
  removedPath: string,
  options: AudienceWalkOptions,
): AsyncGenerator<WalkedRecipient, void, undefined> {
  const after = options.after ?? -1;
  const removed = await RemovedSets.open(removedPath);
  try {
    const listed =
      options.sample === undefined
        ? positioned(filteredListPath, options.uinLimit, 0, Infinity)
        : mergedRuns(filteredListPath, options.uinLimit, options.sample);
    for await (const [uin, position] of listed) {
      // Uins removed entirely that sort before this one come first.
      for (let next = await removed.smallest(); next !== undefined && next < uin; next = await removed.smallest())
        if (next > after) yield { uin: next, position: undefined, removal: await removed.take(next) };
        else await removed.take(next);
      const removal = await removed.take(uin);
      if (uin > after) yield { uin, position, removal };
    }
    for (let next = await removed.smallest(); next !== undefined; next = await removed.smallest()) {
      const removal = await removed.take(next);
      if (next > after) yield { uin: next, position: undefined, removal };
    }
  } finally {
    await removed.close();
  }
}

/** The list's uins at positions [from, to), each with its position, read a chunk at a time. */
async function* positioned(
  path: string,
  uinLimit: number,
  from: number,
  to: number,
): AsyncGenerator<readonly [number, number], void, undefined> {
  let position = 0;
  for await (const chunk of readRecipientList(path, { uinLimit })) {
    for (const uin of chunk) {
      if (position >= from && position < to) yield [uin, position] as const;
      position++;
    }
    if (position >= to) return;
  }
}

/** A canary's two ascending runs merged into one ascending walk (each read once more for the second run's start). */
async function* mergedRuns(
  path: string,
  uinLimit: number,
  sample: number,
): AsyncGenerator<readonly [number, number], void, undefined> {
  const first = positioned(path, uinLimit, 0, sample);
  const second = positioned(path, uinLimit, sample, Infinity);
  let a = await first.next();
  let b = await second.next();
  for (;;) {
    const takeFirst = !a.done && (b.done === true || a.value[0] < b.value[0]);
    if (takeFirst && !a.done) {
      yield a.value;
      a = await first.next();
    } else if (!b.done) {
      yield b.value;
      b = await second.next();
    } else return;
  }
}

/** A task's removed-sets file read section by section in step, lowest uin first. */
class RemovedSets {
  private constructor(
    private readonly file: FileHandle | undefined,
    private readonly complete: boolean,
    private readonly cursors: SectionCursor[],
  ) {}

  static async open(path: string): Promise<RemovedSets> {
    let file: FileHandle;
    try {
      file = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new RemovedSets(undefined, false, []);
      throw error;
    }
    try {
      const count = removedSectionCount(await readExactly(file, path, 0, 8));
      const header = decodeRemovedHeader(await readExactly(file, path, 0, removedHeaderBytes(count)));
      const cursors = header.sections.map((section) => new SectionCursor(file, path, section));
      return new RemovedSets(file, header.complete, cursors);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** The lowest uin any section still holds. */
  async smallest(): Promise<number | undefined> {
    let low: number | undefined;
    for (const cursor of this.cursors) {
      const head = await cursor.head();
      if (head !== undefined && (low === undefined || head < low)) low = head;
    }
    return low;
  }

  /**
   * Consumes every copy of `uin` in every section and says what removalOf
   * says of it: the first link in chain order holding it besides dedupe, and
   * the extra copies dedupe removed before that link.
   */
  async take(uin: number): Promise<RemovalFacts> {
    if (this.file === undefined) return { recorded: false };
    let reason: RemovedSection['reason'] | undefined;
    let duplicateCopies = 0;
    for (const cursor of this.cursors) {
      let copies = 0;
      while ((await cursor.head()) === uin) {
        cursor.advance();
        copies++;
      }
      if (copies === 0 || reason !== undefined) continue;
      if (cursor.reason === 'duplicate') duplicateCopies += copies;
      else reason = cursor.reason;
    }
    return { recorded: true, complete: this.complete, reason, duplicateCopies };
  }

  async close(): Promise<void> {
    await this.file?.close();
  }
}

/** One section's sorted uins, read SECTION_CHUNK at a time by positioned reads. */
class SectionCursor {
  private chunk = new Uint32Array(0);
  private index = 0;
  private read = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    private readonly section: RemovedSection,
  ) {}

  get reason(): RemovedSection['reason'] {
    return this.section.reason;
  }

  async head(): Promise<number | undefined> {
    if (this.index < this.chunk.length) return this.chunk[this.index];
    if (this.read >= this.section.count) return undefined;
    const n = Math.min(SECTION_CHUNK, this.section.count - this.read);
    const bytes = await readExactly(this.file, this.path, this.section.offset + this.read * 4, n * 4);
    this.chunk = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.chunk[i] = bytes.readUInt32LE(i * 4);
    this.index = 0;
    this.read += n;
    return this.chunk[0];
  }

  advance(): void {
    this.index++;
  }
}

async function readExactly(file: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new ListFormatError('LIST_TRUNCATED', `${path} ends before byte ${position + length}`);
  return buffer;
}
