import {
  applyChunkEdit,
  checkUserAttributes,
  chunkEdits,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  lastPerUin,
  UNIVERSE_KEY,
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
import { ErrorCodes, HeraldError, ValidationError } from '@herald/core';
import type { RetryOptions } from '@herald/core/retry';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { openPool, PoolCalls } from './pool';
import type { MySqlTaskStoreOptions } from './connection';

const STORE = 'MySqlAttributeIndex';
/** The named lock every writer of the bitsets holds (migrations/007_audiences.sql). */
const WRITE_LOCK = 'herald_attributes';
const WRITE_LOCK_TIMEOUT_S = 30;
/** Rows per multi-row statement. */
const SLICE = 500;

function toUser(r: RowDataPacket): UserAttributes {
  const user: UserAttributes = { uin: Number(r.uin) };
  if (r.region !== null) user.region = String(r.region);
  if (r.gender !== null) user.gender = String(r.gender) as UserAttributes['gender'];
  if (r.age_band !== null) user.ageBand = String(r.age_band) as UserAttributes['ageBand'];
  if (r.active_at !== null) user.activeAt = Number(r.active_at);
  const tags = typeof r.tags === 'string' ? (JSON.parse(r.tags) as string[]) : (r.tags as string[]);
  if (tags.length > 0) user.tags = tags;
  if (r.tz !== null && r.tz !== undefined) user.tz = String(r.tz);
  return user;
}

function slices<T>(items: readonly T[], size = SLICE): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** `prefix` as a LIKE pattern matching exactly the strings that start with it. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The production AttributeIndex: `user_attributes` (one row per user) and
 * `attribute_chunks` (the per-value bitsets in 2^16-uin chunks) of
 * migrations/007_audiences.sql. It passes the same conformance suites
 * (AttributeIndex, and AudienceSource for `targeting`) as the embedded
 * LevelAttributeIndex.
 *
 * A put or remove is one transaction on one connection holding
 * GET_LOCK('herald_attributes'): read the users' rows, read the chunks their
 * change touches (core chunkEdits), write the edited chunks (deleting those
 * that empty) and the users' rows, commit. Writers are serialised (no
 * deadlocks between two imports' gap locks); readers never wait, and see a
 * user's whole change or none of it.
 */
export class MySqlAttributeIndex implements AttributeIndex, UserAttributeLookup {
  private readonly calls: PoolCalls;

  private constructor(pool: Pool, retry?: RetryOptions) {
    this.calls = new PoolCalls(STORE, pool, retry);
  }

  /** Connects to a migrated database (007_audiences.sql applied); fails like MySqlTaskStore.open. */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlAttributeIndex> {
    return new MySqlAttributeIndex(await openPool(options), options.retry);
  }

  putUsers(users: readonly UserAttributes[]): Promise<void> {
    return this.calls.idempotent('putUsers', async (pool) => {
      if (!Array.isArray(users) || users.length > MAX_USERS_PER_PUT)
        throw new ValidationError(`putUsers takes a list of at most ${MAX_USERS_PER_PUT} users`, { field: 'users' });
      const checked = new Map(
        lastPerUin(users.map((user) => checkUserAttributes(user, 2 ** 32))).map((user) => [user.uin, user]),
      );
      await this.change(pool, [...checked.keys()], (uin) => checked.get(uin));
    });
  }

  removeUsers(uins: readonly number[]): Promise<void> {
    return this.calls.idempotent('removeUsers', async (pool) => {
      if (!Array.isArray(uins) || uins.length > MAX_USERS_PER_PUT)
        throw new ValidationError(`removeUsers takes a list of at most ${MAX_USERS_PER_PUT} uins`, { field: 'uins' });
      for (const uin of uins)
        if (!Number.isInteger(uin) || uin < 0 || uin >= 2 ** 32)
          throw new ValidationError('each uin must be an integer in [0, 2^32)', { field: 'uins' });
      await this.change(pool, [...new Set(uins)], () => undefined);
    });
  }

  private async change(
    pool: Pool,
    uins: readonly number[],
    after: (uin: number) => UserAttributes | undefined,
  ): Promise<void> {
    if (uins.length === 0) return;
    const conn = await pool.getConnection();
    let locked = false;
    try {
      const [[lock]] = await conn.query<RowDataPacket[]>('SELECT GET_LOCK(?, ?) AS got', [
        WRITE_LOCK,
        WRITE_LOCK_TIMEOUT_S,
      ]);
      if (lock?.got !== 1) {
        throw new HeraldError(
          ErrorCodes.UNAVAILABLE,
          `${STORE}: another writer held '${WRITE_LOCK}' for ${WRITE_LOCK_TIMEOUT_S} s; try again`,
          { retriable: true },
        );
      }
      locked = true;
      await conn.beginTransaction();
      try {
        const before = new Map<number, UserAttributes>();
        for (const part of slices(uins)) {
          const [rows] = await conn.query<RowDataPacket[]>(
            'SELECT uin, region, gender, age_band, active_at, tags, tz FROM user_attributes WHERE uin IN (?)',
            [part],
          );
          for (const row of rows) before.set(Number(row.uin), toUser(row));
        }
        const edits = chunkEdits(uins.map((uin) => ({ before: before.get(uin), after: after(uin) })));
        await this.writeChunks(conn, edits);
        await this.writeUsers(conn, uins, after);
        await conn.commit();
      } catch (error) {
        await conn.rollback().catch(() => undefined);
        throw error;
      }
    } finally {
      if (locked) await conn.query('SELECT RELEASE_LOCK(?)', [WRITE_LOCK]).catch(() => undefined);
      conn.release();
    }
  }

  private async writeChunks(conn: PoolConnection, edits: readonly ChunkEdit[]): Promise<void> {
    const byKey = new Map<string, ChunkEdit[]>();
    for (const edit of edits) (byKey.get(edit.key) ?? byKey.set(edit.key, []).get(edit.key)!).push(edit);
    const puts: [string, number, Buffer][] = [];
    const deletes: [string, number][] = [];
    for (const [key, keyEdits] of byKey) {
      const stored = new Map<number, Uint8Array>();
      for (const part of slices(keyEdits)) {
        const [rows] = await conn.query<RowDataPacket[]>(
          'SELECT chunk, bits FROM attribute_chunks WHERE attr_key = ? AND chunk IN (?)',
          [key, part.map((edit) => edit.chunk)],
        );
        for (const row of rows) stored.set(Number(row.chunk), row.bits as Buffer);
      }
      for (const edit of keyEdits) {
        const held = stored.get(edit.chunk);
        const bytes = encodeChunk(applyChunkEdit(held === undefined ? emptyChunk() : decodeChunk(held), edit));
        if (bytes !== undefined)
          puts.push([key, edit.chunk, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
        else if (held !== undefined) deletes.push([key, edit.chunk]);
      }
    }
    // Dense chunks are 8 KiB: fewer of them a statement keeps it well under max_allowed_packet.
    for (const part of slices(puts, 64)) {
      await conn.query(
        `INSERT INTO attribute_chunks (attr_key, chunk, bits) VALUES ${part.map(() => '(?, ?, ?)').join(', ')} ON DUPLICATE KEY UPDATE bits = VALUES(bits)`,
        part.flat(),
      );
    }
    for (const part of slices(deletes)) {
      await conn.query(
        `DELETE FROM attribute_chunks WHERE (attr_key, chunk) IN (${part.map(() => '(?, ?)').join(', ')})`,
        part.flat(),
      );
    }
  }

  private async writeUsers(
    conn: PoolConnection,
    uins: readonly number[],
    after: (uin: number) => UserAttributes | undefined,
  ): Promise<void> {
    const puts = uins.map(after).filter((user): user is UserAttributes => user !== undefined);
    const removed = uins.filter((uin) => after(uin) === undefined);
    for (const part of slices(puts)) {
      await conn.query(
        `INSERT INTO user_attributes (uin, region, gender, age_band, active_at, tags, tz) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
         ON DUPLICATE KEY UPDATE region = VALUES(region), gender = VALUES(gender), age_band = VALUES(age_band), active_at = VALUES(active_at), tags = VALUES(tags), tz = VALUES(tz)`,
        part.flatMap((u) => [
          u.uin,
          u.region ?? null,
          u.gender ?? null,
          u.ageBand ?? null,
          u.activeAt ?? null,
          JSON.stringify(u.tags ?? []),
          u.tz ?? null,
        ]),
      );
    }
    for (const part of slices(removed)) await conn.query('DELETE FROM user_attributes WHERE uin IN (?)', [part]);
  }

  getUser(uin: number): Promise<UserAttributes | undefined> {
    return this.calls.idempotent('getUser', async (pool) => {
      if (!Number.isInteger(uin) || uin < 0 || uin >= 2 ** 32) return undefined;
      const [rows] = await pool.query<RowDataPacket[]>(
        'SELECT uin, region, gender, age_band, active_at, tags, tz FROM user_attributes WHERE uin = ?',
        [uin],
      );
      return rows[0] === undefined ? undefined : toUser(rows[0]);
    });
  }

  getUsers(uins: ArrayLike<number>): Promise<(UserAttributes | undefined)[]> {
    return this.calls.idempotent('getUsers', async (pool) => {
      checkLookupSize(uins);
      const all = Array.from(uins);
      const known = [...new Set(all.filter(isLookupUin))];
      const found = new Map<number, UserAttributes>();
      // By the primary key, a slice of uins a query.
      for (const part of slices(known)) {
        const [rows] = await pool.query<RowDataPacket[]>(
          'SELECT uin, region, gender, age_band, active_at, tags, tz FROM user_attributes WHERE uin IN (?)',
          [part],
        );
        for (const row of rows) found.set(Number(row.uin), toUser(row));
      }
      return all.map((uin) => found.get(uin));
    });
  }

  keysWithPrefix(prefix: string): Promise<string[]> {
    return this.calls.idempotent('keysWithPrefix', async (pool) => {
      if (typeof prefix !== 'string') throw new ValidationError('prefix must be a string', { field: 'prefix' });
      const [rows] = await pool.query<RowDataPacket[]>(
        "SELECT DISTINCT attr_key FROM attribute_chunks WHERE attr_key LIKE ? ESCAPE '\\\\'",
        [likePrefix(prefix)],
      );
      // Sorted here, as the Level index does: JavaScript's order, whatever the collation.
      return rows.map((r) => String(r.attr_key)).sort();
    });
  }

  nextChunk(fromChunk: number): Promise<number | undefined> {
    return this.calls.idempotent('nextChunk', async (pool) => {
      const [rows] = await pool.query<RowDataPacket[]>(
        'SELECT chunk FROM attribute_chunks WHERE attr_key = ? AND chunk >= ? ORDER BY chunk LIMIT 1',
        [UNIVERSE_KEY, Math.max(0, fromChunk)],
      );
      return rows[0] === undefined ? undefined : Number(rows[0].chunk);
    });
  }

  readChunks(keys: readonly string[], fromChunk: number, toChunk: number): Promise<StoredChunk[]> {
    return this.calls.idempotent('readChunks', async (pool) => {
      const unique = [...new Set(keys)];
      if (unique.length === 0 || toChunk <= fromChunk) return [];
      const rows: StoredChunk[] = [];
      for (const part of slices(unique)) {
        const [found] = await pool.query<RowDataPacket[]>(
          'SELECT attr_key, chunk, bits FROM attribute_chunks WHERE attr_key IN (?) AND chunk >= ? AND chunk < ?',
          [part, Math.max(0, fromChunk), toChunk],
        );
        for (const r of found)
          rows.push({ key: String(r.attr_key), chunk: Number(r.chunk), bytes: new Uint8Array(r.bits as Buffer) });
      }
      return rows.sort((a, b) => a.chunk - b.chunk || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    });
  }

  /** Waits for calls in flight, then closes the pool. Later calls fail with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }
}
