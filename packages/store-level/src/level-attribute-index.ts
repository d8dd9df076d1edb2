import type { ChainedBatch } from 'classic-level';
import {
  applyChunkEdit,
  checkUserAttributes,
  chunkEdits,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  lastPerUin,
  TZ_KEY_PREFIX,
  type ChunkEdit,
  type UserAttributes,
} from '@herald/core/targeting';
import {
  checkLookupSize,
  isLookupUin,
  MAX_USERS_PER_PUT,
  type AttributeIndex,
  type UserAttributeLookup,
  type StoredChunk,
} from '@herald/core/ports';
import { ValidationError } from '@herald/core';
import {
  bitsetsWithPrefix,
  chunkKey,
  chunkOfKey,
  firstUsedChunk,
  chunkRange,
  countKey,
  ROWS_PER_BATCH_BYTES,
  userKey,
  zoneRowKey,
  zoneRowRange,
  type AttributeDb,
} from './attribute-keys';
import { decodeJson, encodeJson } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, openLevelDb } from './lifecycle';
import { updateZoneRow, zoneRowInto } from './zone-rows';
import { ensureZoneRows } from './zone-rows-migration';

/**
 * The embedded AttributeIndex, on LevelDB (classic-level), in its own
 * directory (`<dataDir>/attributes`). It passes the same conformance suites
 * (AttributeIndex, and AudienceSource for `targeting`) as the MySQL index.
 *
 * Key layout:
 *
 *   'u' uin:u32                 -> the user's attributes (JSON): what to clear when they change
 *   'b' bitsetKey chunk:u32     -> the chunk's stored form (core bitset-chunk.ts)
 *   'k' bitsetKey (tail)        -> chunk count:u32   the bitsets holding anyone, for keysWithPrefix
 *   'z' chunk:u32               -> every `tz=` bitset's 'b' value for the chunk (zone-rows.ts):
 *                                  a zone walk reads one row per chunk, not one per zone and chunk
 *   'F'                         -> format:u32 (zone-rows-migration.ts); absent: written before 'z' rows
 *
 * A put or remove reads its users' records and the chunks they touch, edits
 * them (core chunkEdits) and writes everything in one batch, under one lock,
 * so a reader never sees a user in two regions, nor a 'z' row and the 'b'
 * rows disagreeing. Opening an index without the format key builds its 'z'
 * rows first.
 */
type Db = AttributeDb;
type Batch = ChainedBatch<Db, Buffer, Buffer>;

/** The `tz=` bitsets are kept twice: as their own 'b' rows and in the chunks' 'z' rows. */
const isZoneKey = (bitset: string) => bitset.startsWith(TZ_KEY_PREFIX);

function countValue(n: number): Buffer {
  const value = Buffer.alloc(4);
  value.writeUInt32BE(n, 0);
  return value;
}

export function checkUins(uins: unknown): number[] {
  if (!Array.isArray(uins) || uins.length > MAX_USERS_PER_PUT)
    throw new ValidationError(`removeUsers takes a list of at most ${MAX_USERS_PER_PUT} uins`, { field: 'uins' });
  for (const uin of uins)
    if (!Number.isInteger(uin) || uin < 0 || uin >= 2 ** 32)
      throw new ValidationError('each uin must be an integer in [0, 2^32)', { field: 'uins' });
  return uins as number[];
}

export function checkUsers(users: unknown): UserAttributes[] {
  if (!Array.isArray(users) || users.length > MAX_USERS_PER_PUT)
    throw new ValidationError(`putUsers takes a list of at most ${MAX_USERS_PER_PUT} users`, { field: 'users' });
  return lastPerUin(users.map((user) => checkUserAttributes(user, 2 ** 32)));
}

/**
 * Puts each edited chunk's new stored form, or deletes it when it empties,
 * and the bitsets' chunk counts (`held` is the edits' rows then the bitsets'
 * counts). Answers each edit's new form, undefined for an emptied chunk.
 */
function writeChunks(
  batch: Batch,
  edits: readonly ChunkEdit[],
  held: readonly (Buffer | undefined)[],
  bitsets: readonly string[],
  countValues: readonly (Buffer | undefined)[],
): (Uint8Array | undefined)[] {
  const counts = new Map(bitsets.map((bitset, i) => [bitset, i]));
  const chunkCounts = bitsets.map((_, i) => (countValues[i] === undefined ? 0 : countValues[i]!.readUInt32BE(0)));
  const forms = edits.map((edit, i) => {
    const stored = held[i];
    const bytes = encodeChunk(applyChunkEdit(stored === undefined ? emptyChunk() : decodeChunk(stored), edit));
    const at = counts.get(edit.key)!;
    if (bytes === undefined) {
      if (stored !== undefined) {
        batch.del(chunkKey(edit.key, edit.chunk));
        chunkCounts[at]!--;
      }
    } else {
      batch.put(chunkKey(edit.key, edit.chunk), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      if (stored === undefined) chunkCounts[at]!++;
    }
    return bytes;
  });
  bitsets.forEach((bitset, i) => {
    if (chunkCounts[i] === 0) batch.del(countKey(bitset));
    else batch.put(countKey(bitset), countValue(chunkCounts[i]!));
  });
  return forms;
}

/**
 * Sets the zone bitsets' new forms (writeChunks') in their chunks' 'z' rows
 * (`rows`: the rows of `zoneChunks`, as read), in the same batch as their
 * 'b' rows; a row left with no zone is deleted.
 */
function writeZoneRows(
  batch: Batch,
  edits: readonly ChunkEdit[],
  forms: readonly (Uint8Array | undefined)[],
  zoneChunks: readonly number[],
  rows: readonly (Buffer | undefined)[],
): void {
  const updates = new Map(zoneChunks.map((chunk) => [chunk, new Map<string, Uint8Array | undefined>()]));
  edits.forEach((edit, i) => {
    if (isZoneKey(edit.key)) updates.get(edit.chunk)!.set(edit.key, forms[i]);
  });
  zoneChunks.forEach((chunk, i) => {
    const row = updateZoneRow(rows[i], chunk, updates.get(chunk)!);
    if (row === undefined) batch.del(zoneRowKey(chunk));
    else batch.put(zoneRowKey(chunk), row);
  });
}

export class LevelAttributeIndex implements AttributeIndex, UserAttributeLookup {
  private readonly life = new Lifecycle('LevelAttributeIndex');
  private readonly writeLock = new KeyedMutex<'write'>();

  private constructor(private readonly db: Db) {}

  /**
   * Opens (creating if needed) the index in directory `path`, building the
   * 'z' rows of an index written by an older build first (a one-off pass over
   * its zone bitsets). UNAVAILABLE if another process holds it.
   */
  static async open(path: string): Promise<LevelAttributeIndex> {
    const db: Db = await openLevelDb(path, 'LevelAttributeIndex');
    try {
      await ensureZoneRows(db);
    } catch (error) {
      await db.close();
      throw error;
    }
    return new LevelAttributeIndex(db);
  }

  putUsers(users: readonly UserAttributes[]): Promise<void> {
    return this.life.run('putUsers', async () => {
      const checked = new Map(checkUsers(users).map((user) => [user.uin, user]));
      await this.change([...checked.keys()], (uin) => checked.get(uin));
    });
  }

  removeUsers(uins: readonly number[]): Promise<void> {
    return this.life.run('removeUsers', async () => {
      const checked = checkUins(uins);
      await this.change([...new Set(checked)], () => undefined);
    });
  }

  /** Reads the users' records and touched chunks, edits them, writes it all in one batch. */
  private change(uins: readonly number[], after: (uin: number) => UserAttributes | undefined): Promise<void> {
    if (uins.length === 0) return Promise.resolve();
    const next = new Map(uins.map((uin) => [uin, after(uin)]));
    return this.writeLock.run('write', async () => {
      const records = await this.db.getMany(uins.map(userKey));
      const changes = uins.map((uin, i) => ({
        before: records[i] === undefined ? undefined : decodeJson<UserAttributes>(records[i]!),
        after: next.get(uin),
      }));
      const edits = chunkEdits(changes);
      const bitsets = [...new Set(edits.map((edit) => edit.key))];
      const zoneChunks = [...new Set(edits.filter((edit) => isZoneKey(edit.key)).map((edit) => edit.chunk))];
      // One read for the chunks, their bitsets' counts and the touched chunks' zone rows.
      const held = await this.db.getMany([
        ...edits.map((edit) => chunkKey(edit.key, edit.chunk)),
        ...bitsets.map(countKey),
        ...zoneChunks.map(zoneRowKey),
      ]);
      const batch = this.db.batch();
      const counted = edits.length + bitsets.length;
      const forms = writeChunks(batch, edits, held.slice(0, edits.length), bitsets, held.slice(edits.length, counted));
      writeZoneRows(batch, edits, forms, zoneChunks, held.slice(counted));
      for (const { after: user } of changes) {
        if (user === undefined) continue;
        batch.put(userKey(user.uin), encodeJson(user));
      }
      for (const uin of uins) if (next.get(uin) === undefined) batch.del(userKey(uin));
      await batch.write();
    });
  }

  getUser(uin: number): Promise<UserAttributes | undefined> {
    return this.life.run('getUser', async () => {
      if (!Number.isInteger(uin) || uin < 0 || uin >= 2 ** 32) return undefined;
      const value = await this.db.get(userKey(uin));
      return value === undefined ? undefined : decodeJson<UserAttributes>(value);
    });
  }

  getUsers(uins: ArrayLike<number>): Promise<(UserAttributes | undefined)[]> {
    return this.life.run('getUsers', async () => {
      checkLookupSize(uins);
      const all = Array.from(uins);
      const known = all.filter(isLookupUin);
      if (known.length === 0) return all.map(() => undefined);
      // One multi-get for the batch; a uin that is no uin answers undefined without a read.
      const values = await this.db.getMany(known.map(userKey));
      let next = 0;
      return all.map((uin) => {
        if (!isLookupUin(uin)) return undefined;
        const value = values[next++];
        return value === undefined ? undefined : decodeJson<UserAttributes>(value);
      });
    });
  }

  keysWithPrefix(prefix: string): Promise<string[]> {
    return this.life.run('keysWithPrefix', () => bitsetsWithPrefix(this.db, prefix));
  }

  nextChunk(fromChunk: number): Promise<number | undefined> {
    return this.life.run('nextChunk', () => firstUsedChunk(this.db, fromChunk));
  }

  readChunks(keys: readonly string[], fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    return this.life.run('readChunks', async () => {
      if (toChunk <= fromChunk) return [];
      // Keys ascending (the default sort compares UTF-16 units, as `<` does): one run of rows per key, by chunk.
      const bitsets = [...new Set(keys)].sort();
      const zones = bitsets.filter(isZoneKey);
      const others = bitsets.filter((bitset) => !isZoneKey(bitset));
      // The iterators read at once: each waits on LevelDB's thread pool, not on the others.
      const [zoneRun, ...runs] = await Promise.all([
        zones.length === 0 ? [] : this.zoneChunksOf(new Set(zones), fromChunk, toChunk),
        ...others.map((bitset) => this.chunksOf(bitset, fromChunk, toChunk)),
      ]);
      if (runs.length === 0) return zoneRun!;
      // The zone keys share their prefix, so they sort together: their run (by chunk, then key) goes where
      // they sort among the other keys' runs. A stable sort by chunk then keeps each chunk's rows in key
      // order; TimSort merges the runs as they are.
      runs.splice(others.filter((bitset) => bitset < TZ_KEY_PREFIX).length, 0, zoneRun!);
      return runs.flat().sort((a, b) => a.chunk - b.chunk);
    });
  }

  /** One bitset's stored chunks in [fromChunk, toChunk), ascending. */
  private async chunksOf(bitset: string, fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    const entries = await this.db
      .iterator({ ...chunkRange(bitset, fromChunk, toChunk), highWaterMarkBytes: ROWS_PER_BATCH_BYTES })
      .all();
    // The Buffer is the row's own: no copy.
    return entries.map(([stored, value]) => ({ key: bitset, chunk: chunkOfKey(stored), bytes: value }));
  }

  /** The zone bitsets' stored chunks in [fromChunk, toChunk) from the 'z' rows, by chunk then key: one row a chunk. */
  private async zoneChunksOf(zones: ReadonlySet<string>, fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    const rows = await this.db
      .iterator({ ...zoneRowRange(fromChunk, toChunk), highWaterMarkBytes: ROWS_PER_BATCH_BYTES })
      .all();
    const out: StoredChunk[] = [];
    for (const [stored, row] of rows) zoneRowInto(row, chunkOfKey(stored), zones, out);
    return out;
  }

  /** Waits for calls in flight, then closes the database. Later calls fail with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
