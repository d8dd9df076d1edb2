import { ClassicLevel } from 'classic-level';
import {
  checkAfterUin,
  checkFollowChange,
  checkFollowersAccount,
  followChangeWins,
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
import { key, prefixRange, readU64BE, tag, writeU64BE } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, openLevelDb } from './lifecycle';

/**
 * The embedded FollowerStore, on LevelDB (classic-level), in its own
 * directory (`<dataDir>/followers`). It passes the same conformance suites
 * (FollowerStore, and AudienceSource for `followers`) as the MySQL store.
 *
 * Key layout:
 *
 *   'f' accountId uin:u32 -> following:u8, at:u64   one per (account, uin) ever changed
 *
 * Unfollowed pairs stay as tombstones (following 0) holding their time, so a
 * late, older follow cannot resurrect them (core followChangeWins). A source
 * reads an account's keys in uin order, a page at a time (keyset: after the
 * last key read), so it holds no iterator between batches.
 */
type Db = ClassicLevel<Buffer, Buffer>;

const pairKey = (accountId: string, uin: number) => key(tag('f'), { str: accountId }, { u32: uin });
const accountPrefix = (accountId: string) => key(tag('f'), { str: accountId });

function encodeState(change: FollowChange): Buffer {
  const value = Buffer.alloc(9);
  value.writeUInt8(change.following ? 1 : 0, 0);
  writeU64BE(value, change.at, 1);
  return value;
}

function decodeState(value: Buffer): { following: boolean; at: number } {
  return { following: value.readUInt8(0) === 1, at: readU64BE(value, 1) };
}

export class LevelFollowerStore implements FollowerStore {
  private readonly life = new Lifecycle('LevelFollowerStore');
  /** One writer at a time: an apply reads the stored states of its pairs, then writes the winners. */
  private readonly writeLock = new KeyedMutex<'write'>();

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the store in directory `path`. UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelFollowerStore> {
    const db: Db = await openLevelDb(path, 'LevelFollowerStore');
    return new LevelFollowerStore(db);
  }

  applyFollows(changes: readonly FollowChange[]): Promise<FollowApplyResult> {
    return this.life.run('applyFollows', async () => {
      if (!Array.isArray(changes)) throw new ValidationError('applyFollows takes a list of follow changes');
      const checked = changes.map((change) => checkFollowChange(change));
      const { winners } = reduceFollowChanges(checked);
      if (winners.length === 0) return { applied: 0, stale: checked.length };
      return this.writeLock.run('write', async () => {
        const keys = winners.map((change) => pairKey(change.accountId, change.uin));
        const stored = await this.db.getMany(keys);
        const batch = this.db.batch();
        let applied = 0;
        winners.forEach((change, i) => {
          const held = stored[i];
          if (held !== undefined && !followChangeWins(change, decodeState(held))) return;
          batch.put(keys[i]!, encodeState(change));
          applied++;
        });
        await batch.write();
        return { applied, stale: checked.length - applied };
      });
    });
  }

  followers(accountId: string, options: FollowersOptions = {}): AudienceSource {
    const account = checkFollowersAccount(accountId);
    const batchSize = checkSourceBatchSize(options.batchSize);
    const afterUin = checkAfterUin(options.afterUin);
    return {
      kind: 'followers',
      description: afterUin === undefined ? { accountId: account } : { accountId: account, afterUin },
      read: (readOptions) => this.readFollowers(account, batchSize, afterUin, readOptions),
    };
  }

  filterFollowers(accountId: string, uins: Uint32Array): Promise<Uint32Array> {
    return this.life.run('filterFollowers', async () => {
      const account = checkFollowersAccount(accountId);
      const batch = checkAscendingBatch(uins);
      const kept = new Uint32Array(batch.length);
      let n = 0;
      // Slices bound the keys and values one getMany holds.
      for (let at = 0; at < batch.length; at += 10_000) {
        const slice = batch.subarray(at, at + 10_000);
        const states = await this.db.getMany(Array.from(slice, (uin) => pairKey(account, uin)));
        states.forEach((state, i) => {
          if (state !== undefined && decodeState(state).following) kept[n++] = slice[i]!;
        });
      }
      return kept.slice(0, n);
    });
  }

  private async *readFollowers(
    accountId: string,
    batchSize: number,
    afterUin: number | undefined,
    { uinLimit, signal }: AudienceReadOptions,
  ): AsyncGenerator<AudienceBatch> {
    const range = prefixRange(accountPrefix(accountId));
    let after: Buffer | undefined = afterUin === undefined ? undefined : pairKey(accountId, afterUin);
    for (;;) {
      signal?.throwIfAborted();
      const bounds = after === undefined ? { gte: range.gte } : { gt: after };
      const page = await this.life.run('followers', () =>
        this.db.iterator({ ...bounds, ...(range.lt ? { lt: range.lt } : {}), limit: batchSize }).all(),
      );
      const uins = new Uint32Array(page.length);
      let n = 0;
      let outOfRange = 0;
      for (const [pairKeyBytes, value] of page) {
        if (!decodeState(value).following) continue;
        const uin = pairKeyBytes.readUInt32BE(pairKeyBytes.length - 4);
        if (classifyUin(uin, uinLimit) === undefined) uins[n++] = uin;
        else outOfRange++;
      }
      if (n > 0 || outOfRange > 0)
        yield outOfRange > 0
          ? { uins: uins.subarray(0, n), bad: { out_of_range: outOfRange } }
          : { uins: uins.subarray(0, n) };
      if (page.length < batchSize) return;
      after = page[page.length - 1]![0];
    }
  }

  /** Waits for calls in flight, then closes the database. Later calls (and running reads) fail with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
