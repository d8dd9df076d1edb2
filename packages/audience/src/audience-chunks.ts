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
import type { ListRun } from './list-runs';
import { RunsMerge, type ListedChunk } from './runs-merge';

/**
 * A run of a task's audience, ascending by uin: the filtered list's uins of
 * one read chunk, merged with the removed uins that sort up to its last one.
 * Row i is `uins[i]`, at `positions[i]` of the filtered list (-1: not in it);
 * its removal facts are `removals[k]` where `named[k] === i`, else `plain`
 * (what removalOf answers for a uin no removed set holds). Its arrays are
 * the walk's own and are reused: a chunk is valid until the next is asked for.
 */
export interface AudienceChunk {
  uins: Uint32Array;
  positions: Float64Array;
  /** Ascending row indexes of the rows a removed set holds. */
  named: Uint32Array;
  removals: RemovalFacts[];
  plain: RemovalFacts;
}

export interface AudienceWalkOptions {
  uinLimit: number;
  /** Start after this uin (a report's cursor); the walk still counts positions from the list's start. */
  after?: number;
  /** Bytes of the filtered list read at a time (tests make it small to cross chunks). */
  chunkBytes?: number;
  /**
   * The sorted runs a list without the SORTED flag was written in (a
   * canary's sample then the rest, a local-time task's groups: ListRun). The
   * walk merges them, so rows stay in uin order with each uin's own
   * position; ignored for a sorted list. Without them such a list is refused
   * (LIST_BAD_HEADER), as positionInList refuses it.
   */
  runs?: readonly ListRun[];
}

/** Uins read from a removed set at a time: 256 KiB per section. */
const SECTION_CHUNK = 1 << 16;

/**
 * Every distinct uin of a task's audience, ascending (the filtered list's
 * order), each once with the facts the per-recipient lookup would find, a
 * chunk of rows at a time: a merge of the filtered list and each link's
 * removed set, all sorted, read a chunk at a time, so memory stays at one
 * chunk per file whatever the list's size and nothing is awaited per row
 * (docs/recipient-truth.md, "The delivery report"). No removed-sets file (a
 * task filtered before the record): only the filtered list's uins, each
 * `{ recorded: false }`.
 */
export async function* walkAudienceChunks(
  filteredListPath: string,
  removedPath: string,
  options: AudienceWalkOptions,
): AsyncGenerator<AudienceChunk, void, undefined> {
  const after = options.after ?? -1;
  const removed = await RemovedSets.open(removedPath);
  try {
    let position = 0;
    const scratch: Scratch = { uins: new Uint32Array(0), positions: new Float64Array(0) };
    const read = {
      uinLimit: options.uinLimit,
      ...(options.chunkBytes === undefined ? {} : { chunkBytes: options.chunkBytes }),
    };
    for await (const list of listedChunks(filteredListPath, read, options.runs)) {
      const named = await removed.takeUpTo(list.uins[list.uins.length - 1]!);
      const chunk = merge(list.uins, list.positions, named, removed.plain, after, scratch);
      position = list.end;
      if (chunk.uins.length > 0) yield chunk;
    }
    // Past the list's last uin, a section chunk at a time (never every remaining removed uin at once).
    for (let bound = await removed.nextBound(); bound !== undefined; bound = await removed.nextBound()) {
      const named = await removed.takeUpTo(bound);
      const rest = merge(new Uint32Array(0), position, named, removed.plain, after, scratch);
      if (rest.uins.length > 0) yield rest;
    }
  } finally {
    await removed.close();
  }
}

type ReadOptions = { uinLimit: number; chunkBytes?: number };

/** The filtered list's uins, ascending: read in file order when it is one sorted run, else its runs merged. */
async function* listedChunks(
  path: string,
  read: ReadOptions,
  runs: readonly ListRun[] | undefined,
): AsyncGenerator<ListedChunk, void, undefined> {
  const merge = await RunsMerge.open(path, runs, read);
  if (merge === undefined) return yield* inFileOrder(path, read);
  try {
    yield* merge.chunks();
  } finally {
    await merge.close();
  }
}

async function* inFileOrder(path: string, read: ReadOptions): AsyncGenerator<ListedChunk, void, undefined> {
  let position = 0;
  for await (const uins of readRecipientList(path, read)) {
    yield { uins, positions: position, end: position + uins.length };
    position += uins.length;
  }
}

/** Removed uins (ascending) and what removalOf says of each. */
interface NamedUins {
  uins: Uint32Array;
  facts: Map<number, RemovalFacts>;
}

/** The rows' arrays, grown as needed and reused chunk after chunk (a fresh pair a chunk cost the report its GC). */
interface Scratch {
  uins: Uint32Array;
  positions: Float64Array;
}

/** The list's uins (positions from `first`, or each its own) and the removed ones, one row per distinct uin above `after`. */
function merge(
  list: Uint32Array,
  first: number | Float64Array,
  named: NamedUins,
  plain: RemovalFacts,
  after: number,
  scratch: Scratch,
): AudienceChunk {
  const size = list.length + named.uins.length;
  if (scratch.uins.length < size) {
    scratch.uins = new Uint32Array(size);
    scratch.positions = new Float64Array(size);
  }
  const { uins, positions } = scratch;
  const namedRows: number[] = [];
  const removals: RemovalFacts[] = [];
  let rows = 0;
  let r = 0;
  const push = (uin: number, position: number, removal: RemovalFacts | undefined) => {
    if (uin <= after) return;
    if (removal !== undefined) {
      namedRows.push(rows);
      removals.push(removal);
    }
    uins[rows] = uin;
    positions[rows++] = position;
  };
  for (let i = 0; i < list.length; i++) {
    const uin = list[i]!;
    for (; r < named.uins.length && named.uins[r]! < uin; r++)
      push(named.uins[r]!, -1, named.facts.get(named.uins[r]!));
    const at = typeof first === 'number' ? first + i : first[i]!;
    if (r < named.uins.length && named.uins[r] === uin) push(uin, at, named.facts.get(named.uins[r++]!));
    else push(uin, at, undefined);
  }
  for (; r < named.uins.length; r++) push(named.uins[r]!, -1, named.facts.get(named.uins[r]!));
  return {
    uins: uins.subarray(0, rows),
    positions: positions.subarray(0, rows),
    named: Uint32Array.from(namedRows),
    removals,
    plain,
  };
}

/** A task's removed-sets file read section by section in step, lowest uin first. */
class RemovedSets {
  readonly plain: RemovalFacts;

  private constructor(
    private readonly file: FileHandle | undefined,
    private readonly complete: boolean,
    private readonly cursors: SectionCursor[],
  ) {
    this.plain =
      file === undefined ? { recorded: false } : { recorded: true, complete, reason: undefined, duplicateCopies: 0 };
  }

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

  /**
   * Consumes every copy of every uin up to `bound` in every section and says
   * of each what removalOf says: the first link in chain order holding it
   * besides dedupe, and the extra copies dedupe removed before that link.
   */
  async takeUpTo(bound: number): Promise<NamedUins> {
    const facts = new Map<number, { reason: RemovedSection['reason'] | undefined; duplicateCopies: number }>();
    for (const cursor of this.cursors) {
      for (const uin of await cursor.takeUpTo(bound)) {
        let fact = facts.get(uin);
        if (fact === undefined) facts.set(uin, (fact = { reason: undefined, duplicateCopies: 0 }));
        if (fact.reason !== undefined) continue;
        if (cursor.reason === 'duplicate') fact.duplicateCopies++;
        else fact.reason = cursor.reason;
      }
    }
    const complete = this.complete;
    const named = new Map<number, RemovalFacts>();
    for (const [uin, fact] of facts) named.set(uin, { recorded: true, complete, ...fact });
    return { uins: Uint32Array.from(named.keys()).sort(), facts: named };
  }

  /** The lowest of the sections' last loaded uins: taking up to it reads no section further; undefined once all are read. */
  async nextBound(): Promise<number | undefined> {
    let low: number | undefined;
    for (const cursor of this.cursors) {
      const last = await cursor.lastLoaded();
      if (last !== undefined && (low === undefined || last < low)) low = last;
    }
    return low;
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

  /** Consumes and returns the section's uins up to `bound` (repeats included). */
  async takeUpTo(bound: number): Promise<number[]> {
    const out: number[] = [];
    for (;;) {
      while (this.index < this.chunk.length && this.chunk[this.index]! <= bound) out.push(this.chunk[this.index++]!);
      if (this.index < this.chunk.length || !(await this.fill())) return out;
    }
  }

  /** The last uin of the chunk in hand (reading the next when this one is used up); undefined once all are taken. */
  async lastLoaded(): Promise<number | undefined> {
    if (this.index >= this.chunk.length && !(await this.fill())) return undefined;
    return this.chunk[this.chunk.length - 1];
  }

  /** Reads the section's next chunk; false once it is all read. */
  private async fill(): Promise<boolean> {
    if (this.read >= this.section.count) return false;
    const n = Math.min(SECTION_CHUNK, this.section.count - this.read);
    const bytes = await readExactly(this.file, this.path, this.section.offset + this.read * 4, n * 4);
    this.chunk = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.chunk[i] = bytes.readUInt32LE(i * 4);
    this.index = 0;
    this.read += n;
    return true;
  }
}

async function readExactly(file: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new ListFormatError('LIST_TRUNCATED', `${path} ends before byte ${position + length}`);
  return buffer;
}
