import {
  checkAfterUin,
  checkFollowChange,
  checkFollowersAccount,
  followChangeWins,
  followPairKey,
  reduceFollowChanges,
  type FollowChange,
} from '@herald/core/audience';
import {
  checkAscendingBatch,
  checkSourceBatchSize,
  classifyUin,
  type AudienceBatch,
  type AudienceReadOptions,
  type AudienceSource,
  type FollowApplyResult,
  type FollowerStore,
  type FollowersOptions,
} from '@herald/core/ports';
import { ValidationError } from '@herald/core';
import type { RetryOptions } from '@herald/core/retry';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { openPool, PoolCalls } from './pool';
import type { MySqlTaskStoreOptions } from './connection';

const STORE = 'MySqlFollowerStore';
/** Pairs per statement: bounds a statement's placeholders (4 a pair) and its row locks. */
const WRITE_SLICE = 1000;

/**
 * The production FollowerStore: the `followers` table of
 * migrations/007_audiences.sql, (account_id, uin) -> following, changed_at.
 * It passes the same conformance suites (FollowerStore, and AudienceSource
 * for `followers`) as the embedded LevelFollowerStore.
 *
 * An apply is one conditional upsert per slice of pairs, written in
 * (account, uin) order so concurrent appliers lock rows in one order:
 *
 *   INSERT ... ON DUPLICATE KEY UPDATE
 *     following  = IF(new.changed_at > changed_at OR (new.changed_at = changed_at AND new.following < following), new.following, following),
 *     changed_at = GREATEST(changed_at, new.changed_at)
 *
 * which is core's followChangeWins in SQL: the database decides against
 * what it holds at that moment, so two appliers racing on a pair still end
 * in the winner's state. The `applied`/`stale` counts come from a plain read
 * just before (exact with one applier, advisory when several race).
 *
 * A `followers` source reads the primary key range of its account by
 * keyset, `uin > :last ORDER BY uin LIMIT :batch`, one pooled query a page.
 */
export class MySqlFollowerStore implements FollowerStore {
  private readonly calls: PoolCalls;

  private constructor(pool: Pool, retry?: RetryOptions) {
    this.calls = new PoolCalls(STORE, pool, retry);
  }

  /** Connects to a migrated database (007_audiences.sql applied); fails like MySqlTaskStore.open. */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlFollowerStore> {
    return new MySqlFollowerStore(await openPool(options), options.retry);
  }

  applyFollows(changes: readonly FollowChange[]): Promise<FollowApplyResult> {
    return this.calls.idempotent('applyFollows', async (pool) => {
      if (!Array.isArray(changes)) throw new ValidationError('applyFollows takes a list of follow changes');
      const checked = changes.map((change) => checkFollowChange(change));
      const winners = reduceFollowChanges(checked).winners.sort((a, b) =>
        a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.uin - b.uin,
      );
      let applied = 0;
      for (let at = 0; at < winners.length; at += WRITE_SLICE) {
        const slice = winners.slice(at, at + WRITE_SLICE);
        const stored = await this.storedStates(pool, slice);
        applied += slice.filter((change) => {
          const held = stored.get(followPairKey(change));
          return held === undefined || followChangeWins(change, held);
        }).length;
        await pool.query<ResultSetHeader>(
          `INSERT INTO followers (account_id, uin, following, changed_at) VALUES ${slice.map(() => '(?, ?, ?, ?)').join(', ')}
           ON DUPLICATE KEY UPDATE
             following = IF(VALUES(changed_at) > changed_at OR (VALUES(changed_at) = changed_at AND VALUES(following) < following), VALUES(following), following),
             changed_at = GREATEST(changed_at, VALUES(changed_at))`,
          slice.flatMap((change) => [change.accountId, change.uin, change.following ? 1 : 0, change.at]),
        );
      }
      return { applied, stale: checked.length - applied };
    });
  }

  private async storedStates(
    pool: Pool,
    pairs: readonly FollowChange[],
  ): Promise<Map<string, { following: boolean; at: number }>> {
    const [rows] = await pool.query<RowDataPacket[]>(
      `SELECT account_id, uin, following, changed_at FROM followers WHERE (account_id, uin) IN (${pairs.map(() => '(?, ?)').join(', ')})`,
      pairs.flatMap((pair) => [pair.accountId, pair.uin]),
    );
    return new Map(
      rows.map((r) => [
        followPairKey({ accountId: String(r.account_id), uin: Number(r.uin) }),
        { following: Number(r.following) === 1, at: Number(r.changed_at) },
      ]),
    );
  }

  followers(accountId: string, options: FollowersOptions = {}): AudienceSource {
    const account = checkFollowersAccount(accountId);
    const batchSize = checkSourceBatchSize(options.batchSize);
    const afterUin = checkAfterUin(options.afterUin);
    return {
      kind: 'followers',
      description: afterUin === undefined ? { accountId: account } : { accountId: account, afterUin },
      read: (readOptions) => this.readFollowers(account, batchSize, afterUin ?? -1, readOptions),
    };
  }

  filterFollowers(accountId: string, uins: Uint32Array): Promise<Uint32Array> {
    return this.calls.idempotent('filterFollowers', async (pool) => {
      const account = checkFollowersAccount(accountId);
      const batch = checkAscendingBatch(uins);
      const kept: number[] = [];
      for (let at = 0; at < batch.length; at += WRITE_SLICE) {
        const slice = Array.from(batch.subarray(at, at + WRITE_SLICE));
        const [rows] = await pool.query<RowDataPacket[]>(
          'SELECT uin FROM followers WHERE account_id = ? AND following = 1 AND uin IN (?) ORDER BY uin',
          [account, slice],
        );
        for (const row of rows) kept.push(Number(row.uin));
      }
      return Uint32Array.from(kept);
    });
  }

  private async *readFollowers(
    accountId: string,
    batchSize: number,
    afterUin: number,
    { uinLimit, signal }: AudienceReadOptions,
  ): AsyncGenerator<AudienceBatch> {
    let after = afterUin;
    for (;;) {
      signal?.throwIfAborted();
      const rows = await this.calls.run('followers', async (pool) => {
        const [page] = await pool.query<RowDataPacket[]>(
          'SELECT uin FROM followers WHERE account_id = ? AND uin > ? AND following = 1 ORDER BY uin LIMIT ?',
          [accountId, after, batchSize],
        );
        return page;
      });
      const uins = new Uint32Array(rows.length);
      let n = 0;
      let outOfRange = 0;
      for (const row of rows) {
        const uin = Number(row.uin);
        if (classifyUin(uin, uinLimit) === undefined) uins[n++] = uin;
        else outOfRange++;
      }
      if (rows.length > 0)
        yield outOfRange > 0
          ? { uins: uins.subarray(0, n), bad: { out_of_range: outOfRange } }
          : { uins: uins.subarray(0, n) };
      if (rows.length < batchSize) return;
      after = Number(rows[rows.length - 1]!.uin);
    }
  }

  /** Waits for calls in flight, then closes the pool. Later calls (and running reads) fail with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }
}
