import { ClassicLevel } from 'classic-level';
import {
  applyChunkEdit,
  checkUserAttributes,
  chunkEdits,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  lastPerUin,
  UNIVERSE_KEY,
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
import { decodeJson, encodeJson, key, prefixRange, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, openLevelDb } from './lifecycle';

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
 *
 * A put or remove reads its users' records and the chunks they touch, edits
 * them (core chunkEdits) and writes everything in one batch, under one lock,
 * so a reader never sees a user in two regions.
 */
type Db = ClassicLevel<Buffer, Buffer>;

/** Bytes one iterator batch may hold: 1000 rows (abstract-level's batch for `all()`) of sparse chunks fit. */
const ROWS_PER_BATCH_BYTES = 1 << 20;

const userKey = (uin: number) => key(tag('u'), { u32: uin });
const chunkKey = (bitset: string, chunk: number) => key(tag('b'), { str: bitset }, { u32: chunk });
const bitsetPrefix = (bitset: string) => key(tag('b'), { str: bitset });
const countKey = (bitset: string) => key(tag('k'), { tail: bitset });

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

export class LevelAttributeIndex implements AttributeIndex, UserAttributeLookup {
  private readonly life = new Lifecycle('LevelAttributeIndex');
  private readonly writeLock = new KeyedMutex<'write'>();

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the index in directory `path`. UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelAttributeIndex> {
    const db: Db = await openLevelDb(path, 'LevelAttributeIndex');
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
      const stored = await this.db.getMany(edits.map((edit) => chunkKey(edit.key, edit.chunk)));
      const bitsets = [...new Set(edits.map((edit) => edit.key))];
      const counts = new Map(bitsets.map((bitset, i) => [bitset, i]));
      const countValues = await this.db.getMany(bitsets.map(countKey));
      const chunkCounts = countValues.map((value) => (value === undefined ? 0 : value.readUInt32BE(0)));
      const batch = this.db.batch();
      edits.forEach((edit, i) => {
        const held = stored[i];
        const bytes = encodeChunk(applyChunkEdit(held === undefined ? emptyChunk() : decodeChunk(held), edit));
        const at = counts.get(edit.key)!;
        if (bytes === undefined) {
          if (held !== undefined) {
            batch.del(chunkKey(edit.key, edit.chunk));
            chunkCounts[at]!--;
          }
        } else {
          batch.put(chunkKey(edit.key, edit.chunk), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          if (held === undefined) chunkCounts[at]!++;
        }
      });
      bitsets.forEach((bitset, i) => {
        if (chunkCounts[i] === 0) batch.del(countKey(bitset));
        else batch.put(countKey(bitset), countValue(chunkCounts[i]!));
      });
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
    return this.life.run('keysWithPrefix', async () => {
      const tagLength = 1;
      const keys = await this.db.keys(prefixRange(countKey(prefix))).all();
      return keys.map((k) => k.subarray(tagLength).toString('utf16le')).sort();
    });
  }

  nextChunk(fromChunk: number): Promise<number | undefined> {
    return this.life.run('nextChunk', async () => {
      const range = prefixRange(bitsetPrefix(UNIVERSE_KEY));
      const [found] = await this.db
        .keys({ gte: chunkKey(UNIVERSE_KEY, Math.max(0, fromChunk)), ...(range.lt ? { lt: range.lt } : {}), limit: 1 })
        .all();
      return found === undefined ? undefined : found.readUInt32BE(found.length - 4);
    });
  }

  readChunks(keys: readonly string[], fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    return this.life.run('readChunks', async () => {
      if (toChunk <= fromChunk) return [];
      // Keys ascending (the default sort compares UTF-16 units, as `<` does): one run of rows per key, by chunk.
      const bitsets = [...new Set(keys)].sort();
      // The keys' iterators read at once: each waits on LevelDB's thread pool, not on the others.
      const runs = await Promise.all(bitsets.map((bitset) => this.chunksOf(bitset, fromChunk, toChunk)));
      // A stable sort by chunk keeps each chunk's rows in key order; TimSort merges the runs as they are.
      return runs.flat().sort((a, b) => a.chunk - b.chunk);
    });
  }

  /** One bitset's stored chunks in [fromChunk, toChunk), ascending. */
  private async chunksOf(bitset: string, fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    const range = prefixRange(bitsetPrefix(bitset));
    const upper = toChunk >= 2 ** 32 ? range.lt : chunkKey(bitset, toChunk);
    const entries = await this.db
      .iterator({
        gte: chunkKey(bitset, Math.max(0, fromChunk)),
        ...(upper ? { lt: upper } : {}),
        // classic-level's 16 KiB default stops each batch of 1000 at ~100 rows: a trip to its threads per 100.
        highWaterMarkBytes: ROWS_PER_BATCH_BYTES,
      })
      .all();
    // The Buffer is the row's own: no copy.
    return entries.map(([stored, value]) => ({
      key: bitset,
      chunk: stored.readUInt32BE(stored.length - 4),
      bytes: value,
    }));
  }

  /** Waits for calls in flight, then closes the database. Later calls fail with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
