/**
 * Local copies of big accounts' followers (docs/audience-sources.md, "Local
 * copies"): reading 10^8
 * followers from the source of truth by keyset takes a database's time, so an
 * account past a threshold keeps its full follower list as a local binary
 * file plus an incremental change file (follow/unfollow changes appended as
 * they arrive), merged when read. Before a copy is used it is validated by
 * sampling against the source of truth (core judgeFollowerSamples); a copy
 * that fails, or cannot be read, gives way to the source itself.
 *
 * Files, under the copies' directory:
 *
 *   <account>.hrl       the followers when the copy was made: a recipient-list file, SORTED | UNIQUE
 *   <account>.changes   changes since, one JSON object a line: { "uin", "following", "at" }
 */
import AsyncLock from 'async-lock';
import { appendFile, chmod, copyFile, mkdir, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkFollowChange,
  checkFollowersAccount,
  followChangeWins,
  followerSampleSize,
  FOLLOWER_SAMPLING,
  judgeFollowerSamples,
  sampleErrorRate,
  type FollowChange,
  type SamplingVerdict,
} from '@herald/core/audience';
import {
  checkSourceBatchSize,
  noopLogger,
  type AudienceBatch,
  type AudienceReadOptions,
  type AudienceSource,
  type FollowApplyResult,
  type FollowerStore,
  type Logger,
} from '@herald/core/ports';
import { ListFlags, LIST_HEADER_BYTES } from '@herald/core/recipient-list';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@herald/core';
import { isErrno } from './fs-util';
import { readRecipientList, readRecipientListHeader } from './list-reader';
import { applyChanges, scanFollowers, type Changes } from './follower-scan';

export interface FollowerCopiesOptions {
  /** Where the samples start: a number in [0, 1). @defaultValue Math.random */
  random?: () => number;
  logger?: Logger;
}

/** Reads a file's 8-byte uin at index `i` of its body. */
async function uinAt(handle: Awaited<ReturnType<typeof open>>, i: number): Promise<number> {
  const buffer = Buffer.alloc(8);
  await handle.read(buffer, 0, 8, LIST_HEADER_BYTES + 8 * i);
  return buffer.readUInt32LE(0);
}

export class FollowerCopies {
  private readonly random: () => number;
  private readonly logger: Logger;
  /** Accounts known to have a copy (read from the directory on first use). */
  private known: Set<string> | undefined;
  private readonly verdicts = new Map<string, SamplingVerdict & { at: 'copy' | 'source' }>();
  /** One writer per account at a time: an install and an append never interleave. No cap on waiters. */
  private readonly locks = new AsyncLock({ maxPending: Infinity });

  constructor(
    readonly dir: string,
    options: FollowerCopiesOptions = {},
  ) {
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? noopLogger;
  }

  private basePath(accountId: string): string {
    return join(this.dir, `${checkFollowersAccount(accountId)}.hrl`);
  }

  private changesPath(accountId: string): string {
    return join(this.dir, `${checkFollowersAccount(accountId)}.changes`);
  }

  private serial<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.acquire(accountId, fn);
  }

  async has(accountId: string): Promise<boolean> {
    try {
      return (await stat(this.basePath(accountId))).isFile();
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /**
   * Makes `listPath` (a sorted, duplicate-free list of the account's followers
   * read from the source of truth, e.g. a followers job's list) the account's
   * copy, with no changes yet. The changes are emptied first, then the new
   * base renamed into place: a crash between leaves the old base without its
   * changes, which the sampling before each use catches.
   */
  async install(accountId: string, listPath: string): Promise<void> {
    const base = this.basePath(accountId);
    const header = await readRecipientListHeader(listPath);
    const needed = ListFlags.SORTED | ListFlags.UNIQUE;
    if ((header.flags & needed) !== needed)
      throw new Error(`follower copy of ${accountId}: ${listPath} is not sorted and unique`);
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await this.serial(accountId, async () => {
      await copyFile(listPath, `${base}.tmp`);
      // A copy takes its source's mode: set it, whatever the source had.
      await chmod(`${base}.tmp`, PRIVATE_FILE_MODE);
      await writeFile(this.changesPath(accountId), '', { mode: PRIVATE_FILE_MODE });
      await rename(`${base}.tmp`, base);
      (await this.accounts()).add(accountId);
    });
    this.logger.info('follower copy installed', { account: accountId, followers: header.count });
  }

  /** The accounts that have a copy, e.g. to resync them all (resyncFollowerCopies). */
  async copiedAccounts(): Promise<string[]> {
    return [...(await this.accounts())].sort();
  }

  private async accounts(): Promise<Set<string>> {
    if (this.known === undefined) {
      const names = await readdir(this.dir).catch(() => [] as string[]);
      this.known = new Set(names.filter((name) => name.endsWith('.hrl')).map((name) => name.slice(0, -4)));
    }
    return this.known;
  }

  /**
   * Appends follow changes to the change files of the accounts that have a
   * copy; the others' are ignored (their source of truth has them). Shaped
   * like FollowerStore.applyFollows, so the event-bus applier can feed it.
   */
  async applyFollows(changes: readonly FollowChange[]): Promise<FollowApplyResult> {
    const checked = changes.map((change) => checkFollowChange(change));
    const accounts = await this.accounts();
    const byAccount = new Map<string, string[]>();
    for (const change of checked) {
      if (!accounts.has(change.accountId)) continue;
      const lines = byAccount.get(change.accountId) ?? [];
      lines.push(JSON.stringify({ uin: change.uin, following: change.following, at: change.at }));
      byAccount.set(change.accountId, lines);
    }
    let applied = 0;
    for (const [accountId, lines] of byAccount) {
      await this.serial(accountId, () =>
        appendFile(this.changesPath(accountId), `${lines.join('\n')}\n`, { mode: PRIVATE_FILE_MODE }),
      );
      applied += lines.length;
    }
    return { applied, stale: checked.length - applied };
  }

  /** What the last read of the account's copy decided, for operators and tests. */
  lastVerdict(accountId: string): (SamplingVerdict & { at: 'copy' | 'source' }) | undefined {
    return this.verdicts.get(accountId);
  }

  /**
   * The account's followers from its copy, validated by sampling against
   * `truth` at every read; falls back to `truth.followers(accountId)` when
   * the samples fail or the copy cannot be read. Strictly ascending, like
   * every AudienceSource.
   */
  source(accountId: string, truth: FollowerStore, options: { batchSize?: number } = {}): AudienceSource {
    const account = checkFollowersAccount(accountId);
    const batchSize = checkSourceBatchSize(options.batchSize);
    return {
      kind: 'followers',
      description: { accountId: account, localCopy: true },
      read: (readOptions) => this.read(account, truth, batchSize, readOptions),
    };
  }

  /** The copy's changes when its samples pass (the verdict is kept for lastVerdict), undefined when the source of truth must answer. */
  private async usableChanges(accountId: string, truth: FollowerStore): Promise<Changes | undefined> {
    let changes: Changes | undefined;
    let verdict: SamplingVerdict;
    try {
      changes = await this.loadChanges(accountId);
      verdict = await this.validate(accountId, truth, changes);
    } catch (error) {
      this.logger.warn('follower copy unreadable: reading the source of truth', {
        account: accountId,
        error: String(error),
      });
      verdict = judgeFollowerSamples([]);
    }
    this.verdicts.set(accountId, { ...verdict, at: verdict.usable ? 'copy' : 'source' });
    if (verdict.usable && changes !== undefined) return changes;
    this.logger.info('follower copy failed its samples: reading the source of truth', {
      account: accountId,
      mean: verdict.mean,
      worst: verdict.worst,
    });
    return undefined;
  }

  private async *read(
    accountId: string,
    truth: FollowerStore,
    batchSize: number,
    readOptions: AudienceReadOptions,
  ): AsyncGenerator<AudienceBatch> {
    const changes = await this.usableChanges(accountId, truth);
    if (changes === undefined) yield* truth.followers(accountId, { batchSize }).read(readOptions);
    else yield* this.merged(accountId, changes, batchSize, readOptions);
  }

  /**
   * The uins of `sortedUnique` (strictly ascending, any length) that follow
   * the account now, from the copy: the filter chain's follower check.
   * Validated by sampling like `source`; a copy that passes answers by one
   * sequential scan of its file merged with its changes (scanFollowers).
   * Undefined when the copy failed its samples or cannot be read: the caller
   * asks the source of truth (`truth.filterFollowers`) instead.
   */
  async filterFollowers(
    accountId: string,
    sortedUnique: Uint32Array,
    truth: FollowerStore,
  ): Promise<Uint32Array | undefined> {
    const account = checkFollowersAccount(accountId);
    const changes = await this.usableChanges(account, truth);
    if (changes === undefined) return undefined;
    return applyChanges(await scanFollowers(this.basePath(account), sortedUnique), sortedUnique, changes);
  }

  /** The change file, reduced to the winning change per uin (core followChangeWins). */
  private async loadChanges(accountId: string): Promise<Changes> {
    const text = await readFile(this.changesPath(accountId), 'utf8').catch((error: unknown) => {
      if (isErrno(error, 'ENOENT')) return '';
      throw error;
    });
    const changes: Changes = new Map();
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const { uin, following, at } = JSON.parse(line) as { uin: number; following: boolean; at: number };
      const held = changes.get(uin);
      if (held === undefined || followChangeWins({ following, at }, held)) changes.set(uin, { following, at });
    }
    return changes;
  }

  /** FOLLOWER_SAMPLING.samples samples, each starting at a random follower of the copy, compared with the truth over the same stretch. */
  private async validate(accountId: string, truth: FollowerStore, changes: Changes): Promise<SamplingVerdict> {
    const base = this.basePath(accountId);
    const { count } = await readRecipientListHeader(base);
    const size = followerSampleSize(count);
    const handle = await open(base, 'r');
    try {
      const rates: number[] = [];
      for (let s = 0; s < FOLLOWER_SAMPLING.samples; s++) {
        const start = count === 0 ? 0 : await uinAt(handle, Math.min(count - 1, Math.floor(this.random() * count)));
        const afterUin = start === 0 ? undefined : start - 1;
        const truthPage = await firstUins(
          truth.followers(accountId, { batchSize: size, ...(afterUin === undefined ? {} : { afterUin }) }),
          size,
        );
        // The stretch the truth's page covers: up to its last uin, or to the end when it ran out.
        const end = truthPage.length === size ? truthPage[size - 1]! : 2 ** 32 - 1;
        const copyRange = await this.copyRange(handle, count, changes, afterUin === undefined ? -1 : afterUin, end);
        rates.push(sampleErrorRate(copyRange, truthPage));
      }
      return judgeFollowerSamples(rates);
    } finally {
      await handle.close();
    }
  }

  /** The copy's followers (base merged with changes) in (after, end], ascending. */
  private async copyRange(
    handle: Awaited<ReturnType<typeof open>>,
    count: number,
    changes: Changes,
    after: number,
    end: number,
  ): Promise<Uint32Array> {
    // The first index of the base above `after`: a binary search by 8-byte reads.
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((await uinAt(handle, mid)) <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    const block = Buffer.alloc(64 * 1024);
    for (let i = lo; i < count;) {
      const n = Math.min(block.length / 8, count - i);
      await handle.read(block, 0, n * 8, LIST_HEADER_BYTES + 8 * i);
      let past = false;
      for (let k = 0; k < n; k++) {
        const uin = block.readUInt32LE(8 * k);
        if (uin > end) {
          past = true;
          break;
        }
        if (changes.get(uin)?.following !== false) out.push(uin);
      }
      if (past) break;
      i += n;
    }
    for (const [uin, state] of changes) if (state.following && uin > after && uin <= end) out.push(uin);
    return Uint32Array.from(new Set(out)).sort();
  }

  /** The copy merged with its changes, streamed in ascending order. */
  private async *merged(
    accountId: string,
    changes: Changes,
    batchSize: number,
    { uinLimit, signal }: AudienceReadOptions,
  ): AsyncGenerator<AudienceBatch> {
    const added = Uint32Array.from([...changes].filter(([, state]) => state.following).map(([uin]) => uin)).sort();
    let a = 0;
    let out = new Uint32Array(batchSize);
    let n = 0;
    let outOfRange = 0;
    const flush = function* (): Generator<AudienceBatch> {
      if (n === 0 && outOfRange === 0) return;
      yield outOfRange > 0 ? { uins: out.slice(0, n), bad: { out_of_range: outOfRange } } : { uins: out.slice(0, n) };
      out = new Uint32Array(batchSize);
      n = 0;
      outOfRange = 0;
    };
    const take = (uin: number): boolean => {
      if (uin >= uinLimit) outOfRange++;
      else out[n++] = uin;
      return n === batchSize;
    };
    for await (const batch of readRecipientList(this.basePath(accountId), { uinLimit: 2 ** 32 })) {
      signal?.throwIfAborted();
      for (let i = 0; i < batch.length; i++) {
        const uin = batch[i]!;
        while (a < added.length && added[a]! < uin) if (take(added[a++]!)) yield* flush();
        if (a < added.length && added[a] === uin) a++;
        if (changes.get(uin)?.following !== false && take(uin)) yield* flush();
      }
    }
    while (a < added.length) if (take(added[a++]!)) yield* flush();
    yield* flush();
  }
}

/** The first `count` uins a source yields (it is read no further). */
async function firstUins(source: AudienceSource, count: number): Promise<Uint32Array> {
  const out: number[] = [];
  for await (const batch of source.read({ uinLimit: 2 ** 32 })) {
    for (const uin of batch.uins) {
      out.push(uin);
      if (out.length === count) return Uint32Array.from(out);
    }
  }
  return Uint32Array.from(out);
}
