import { ClassicLevel } from 'classic-level';
import {
  applyCampaignPatch,
  campaignMatchesSearch,
  campaignNotFound,
  checkAdvance,
  checkCampaignId,
  checkCampaignTime,
  compileCampaignQuery,
  compileFiringQuery,
  newCampaignRecord,
  newFiringRecord,
  type Campaign,
  type CampaignFiring,
  type CampaignPage,
  type CampaignPatch,
  type CampaignQuery,
  type FiringPage,
  type FiringQuery,
  type NewCampaign,
  type NewCampaignFiring,
} from '@herald/core/campaign';
import type { CampaignStore } from '@herald/core/ports';
import { DEFAULT_SEARCH_SCAN_BUDGET } from '@herald/core/task';
import { decodeJson, EMPTY, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, toHeraldError, openLevelDb } from './lifecycle';

/**
 * The embedded CampaignStore, on LevelDB (classic-level): one directory, one
 * process. It passes the same conformance suite as MySqlCampaignStore.
 *
 * Key layout (tag byte first; numbers u64 big-endian, so byte order is
 * numeric order; campaign times are non-negative by core's checks):
 *
 *   'm' "seq"                                 -> last campaign id handed out (u64)
 *   'c' campaignId:u64                        -> Campaign (JSON)
 *   'a' accountId(len + chars) campaignId:u64 -> ''    an account's campaigns, in id order
 *   'f' campaignId:u64 scheduledAt:u64        -> CampaignFiring (JSON)
 *   'k' idempotencyKey                        -> campaignId (u64), written and deleted with its campaign
 *   'r' runKey                                -> campaignId:u64 scheduledAt:u64, the firing holding the key,
 *                                                written with the firing and deleted with its campaign
 *
 * Atomicity: every read-modify-write of one campaign (update, the
 * lastScheduledAt compare-and-set, recording a firing, delete) runs under
 * that campaign's in-process lock and ends in one put or batch; LevelDB's
 * LOCK file keeps other processes out. Creation runs under one more lock so
 * ids and the counter advance together, and so a key's lookup and its
 * write cannot interleave with another creation's.
 */
type Db = ClassicLevel<Buffer, Buffer>;

const SEQ_KEY = key(tag('m'), { tail: 'seq' });
const CAMPAIGNS = prefixRange(key(tag('c')));
/** Lock key for creation; campaign ids are positive, so 0 never names one. */
const CREATE_LOCK = 0;
/** Lock key for the run-key index, shared by all campaigns' firings; -1 never names a campaign either. */
const RUN_KEY_LOCK = -1;

const campaignKey = (id: number) => key(tag('c'), { u64: id });
const accountPrefix = (accountId: string) => key(tag('a'), { str: accountId });
const accountKey = (accountId: string, id: number) => key(tag('a'), { str: accountId }, { u64: id });
const firingKey = (campaignId: number, scheduledAt: number) => key(tag('f'), { u64: campaignId }, { u64: scheduledAt });
const idempotencyKeyOf = (k: string) => key(tag('k'), { tail: k });
const firingsOf = (campaignId: number) => prefixRange(key(tag('f'), { u64: campaignId }));
const runKeyOf = (k: string) => key(tag('r'), { tail: k });

export class LevelCampaignStore implements CampaignStore {
  private readonly life = new Lifecycle('LevelCampaignStore');
  private readonly locks = new KeyedMutex<number>();

  private constructor(
    private readonly db: Db,
    private lastId: number,
  ) {}

  /** Opens (creating if needed) the store in directory `path`. Fails with UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelCampaignStore> {
    const db: Db = await openLevelDb(path, 'LevelCampaignStore');
    try {
      const seq = await db.get(SEQ_KEY);
      const [lastKey] = await db.keys({ ...CAMPAIGNS, reverse: true, limit: 1 }).all();
      const lastId = Math.max(
        seq === undefined ? 0 : readU64BE(seq, 0),
        lastKey === undefined ? 0 : readU64BE(lastKey, 1),
      );
      return new LevelCampaignStore(db, lastId);
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelCampaignStore', 'open');
    }
  }

  createCampaign(input: NewCampaign, now: number): Promise<Campaign> {
    return this.life.run('createCampaign', () =>
      this.locks.run(CREATE_LOCK, async () => {
        const id = this.lastId + 1;
        const campaign = newCampaignRecord(id, input, now);
        if (campaign.idempotencyKey !== undefined) {
          const existing = await this.byIdempotencyKey(campaign.idempotencyKey);
          if (existing !== undefined) return existing;
        }
        await this.db.batch([
          { type: 'put', key: campaignKey(id), value: encodeJson(campaign) },
          { type: 'put', key: accountKey(campaign.accountId, id), value: EMPTY },
          { type: 'put', key: SEQ_KEY, value: key({ u64: id }) },
          ...(campaign.idempotencyKey === undefined
            ? []
            : [{ type: 'put' as const, key: idempotencyKeyOf(campaign.idempotencyKey), value: key({ u64: id }) }]),
        ]);
        this.lastId = id;
        return campaign;
      }),
    );
  }

  getCampaign(id: number): Promise<Campaign | undefined> {
    return this.life.run('getCampaign', () => this.read(id));
  }

  getCampaignByIdempotencyKey(k: string): Promise<Campaign | undefined> {
    return this.life.run('getCampaignByIdempotencyKey', () => this.byIdempotencyKey(k));
  }

  listCampaigns(query: CampaignQuery = {}): Promise<CampaignPage> {
    return this.life.run('listCampaigns', async () => {
      const q = compileCampaignQuery(query);
      const campaigns: Campaign[] = [];
      // A search reads at most its budget of campaigns per page, then answers the last id read as the cursor.
      let budget = q.search === undefined ? Infinity : DEFAULT_SEARCH_SCAN_BUDGET;
      let lastRead = 0;
      /** Takes a campaign read; true when the scan should stop. */
      const take = (c: Campaign): boolean => {
        budget--;
        lastRead = c.id;
        const wanted =
          (q.enabled === undefined || c.enabled === q.enabled) &&
          (q.search === undefined || campaignMatchesSearch(c, q.search));
        if (wanted) campaigns.push(c);
        return campaigns.length > q.limit || budget === 0;
      };
      if (q.accountIds === undefined) {
        for await (const [, value] of this.db.iterator({ gt: campaignKey(q.afterId), lt: CAMPAIGNS.lt })) {
          if (take(decodeJson<Campaign>(value))) break;
        }
      } else {
        // An account's index gives its ids in order; the accounts' ids are merged, then read in order.
        const ids: number[] = [];
        for (const accountId of q.accountIds) {
          const prefix = accountPrefix(accountId);
          for await (const k of this.db.keys({ gt: accountKey(accountId, q.afterId), lt: prefixRange(prefix).lt }))
            ids.push(readU64BE(k, prefix.length));
        }
        ids.sort((a, b) => a - b);
        for (const id of ids) {
          const campaign = await this.read(id);
          if (campaign !== undefined && take(campaign)) break;
        }
      }
      const page = campaigns.slice(0, q.limit);
      if (campaigns.length > q.limit) return { campaigns: page, nextCursor: page[page.length - 1]!.id };
      // Out of budget: maybe more to read after the last campaign read (a spare page end costs one empty page).
      return { campaigns: page, nextCursor: budget === 0 ? lastRead : null };
    });
  }

  updateCampaign(id: number, patch: CampaignPatch, now: number): Promise<Campaign> {
    return this.write('updateCampaign', id, async (campaign) => {
      const next = applyCampaignPatch(campaign, patch, now);
      await this.db.put(campaignKey(id), encodeJson(next));
      return next;
    });
  }

  deleteCampaign(id: number): Promise<boolean> {
    return this.life.run('deleteCampaign', () =>
      this.locks.run(id, async () => {
        const campaign = await this.read(id);
        if (campaign === undefined) return false;
        const firings = await this.db.keys(firingsOf(id)).all();
        const runKeys = await this.runKeysOf(id);
        await this.db.batch([
          { type: 'del', key: campaignKey(id) },
          { type: 'del', key: accountKey(campaign.accountId, id) },
          ...(campaign.idempotencyKey === undefined
            ? []
            : [{ type: 'del' as const, key: idempotencyKeyOf(campaign.idempotencyKey) }]),
          ...firings.map((k) => ({ type: 'del' as const, key: k })),
          ...runKeys.map((k) => ({ type: 'del' as const, key: runKeyOf(k) })),
        ]);
        return true;
      }),
    );
  }

  advanceLastScheduled(id: number, expected: number | null, next: number): Promise<boolean> {
    return this.write('advanceLastScheduled', id, async (campaign) => {
      checkAdvance(expected, next);
      if ((campaign.lastScheduledAt ?? null) !== expected) return false;
      await this.db.put(campaignKey(id), encodeJson({ ...campaign, lastScheduledAt: next }));
      return true;
    });
  }

  recordFiring(firing: NewCampaignFiring): Promise<CampaignFiring> {
    return this.life.run('recordFiring', async () => {
      const record = newFiringRecord(firing);
      return this.locks.run(record.campaignId, async () => {
        if ((await this.read(record.campaignId)) === undefined) throw campaignNotFound(record.campaignId);
        const k = firingKey(record.campaignId, record.scheduledAt);
        const stored = await this.db.get(k);
        if (stored !== undefined) return decodeJson<CampaignFiring>(stored);
        if (record.runKey === undefined) {
          await this.db.put(k, encodeJson(record));
          return record;
        }
        return this.recordKeyedFiring(record, record.runKey);
      });
    });
  }

  getFiringByRunKey(runKey: string): Promise<CampaignFiring | undefined> {
    return this.life.run('getFiringByRunKey', async () => {
      if (typeof runKey !== 'string' || runKey === '') return undefined;
      const holder = await this.db.get(runKeyOf(runKey));
      if (holder === undefined) return undefined;
      const stored = await this.db.get(firingKey(readU64BE(holder, 0), readU64BE(holder, 8)));
      return stored === undefined ? undefined : decodeJson<CampaignFiring>(stored);
    });
  }

  getFiring(campaignId: number, scheduledAt: number): Promise<CampaignFiring | undefined> {
    return this.life.run('getFiring', async () => {
      checkCampaignId(campaignId, 'campaignId');
      checkCampaignTime('scheduledAt', scheduledAt);
      const stored = await this.db.get(firingKey(campaignId, scheduledAt));
      return stored === undefined ? undefined : decodeJson<CampaignFiring>(stored);
    });
  }

  listFirings(campaignId: number, query: FiringQuery = {}): Promise<FiringPage> {
    return this.life.run('listFirings', async () => {
      checkCampaignId(campaignId, 'campaignId');
      const q = compileFiringQuery(query);
      const range = firingsOf(campaignId);
      const upper =
        q.beforeScheduledAt === undefined ? { lt: range.lt } : { lt: firingKey(campaignId, q.beforeScheduledAt) };
      const values = await this.db.values({ gte: range.gte, ...upper, reverse: true, limit: q.limit + 1 }).all();
      const firings = values.slice(0, q.limit).map((v) => decodeJson<CampaignFiring>(v));
      return { firings, nextCursor: values.length > q.limit ? firings[firings.length - 1]!.scheduledAt : null };
    });
  }

  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }

  private async read(id: number): Promise<Campaign | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) return undefined;
    const value = await this.db.get(campaignKey(id));
    return value === undefined ? undefined : decodeJson<Campaign>(value);
  }

  /** Writes a firing and its run key together; a key another firing holds stays with it. */
  private recordKeyedFiring(record: CampaignFiring, runKey: string): Promise<CampaignFiring> {
    return this.locks.run(RUN_KEY_LOCK, async () => {
      const k = firingKey(record.campaignId, record.scheduledAt);
      if ((await this.db.get(runKeyOf(runKey))) !== undefined) {
        const { runKey: _held, ...unkeyed } = record;
        await this.db.put(k, encodeJson(unkeyed));
        return unkeyed;
      }
      await this.db.batch([
        { type: 'put', key: k, value: encodeJson(record) },
        { type: 'put', key: runKeyOf(runKey), value: key({ u64: record.campaignId }, { u64: record.scheduledAt }) },
      ]);
      return record;
    });
  }

  /** The run keys a campaign's firings hold, to free them with the campaign. */
  private async runKeysOf(campaignId: number): Promise<string[]> {
    const firings = await this.db.values(firingsOf(campaignId)).all();
    return firings.map((v) => decodeJson<CampaignFiring>(v).runKey).filter((k): k is string => k !== undefined);
  }

  private async byIdempotencyKey(k: string): Promise<Campaign | undefined> {
    if (typeof k !== 'string' || k === '') return undefined;
    const id = await this.db.get(idempotencyKeyOf(k));
    return id === undefined ? undefined : this.read(readU64BE(id, 0));
  }

  /** One read-modify-write of a campaign under its lock; a missing campaign is CAMPAIGN_NOT_FOUND. */
  private write<T>(op: string, id: number, change: (campaign: Campaign) => Promise<T>): Promise<T> {
    return this.life.run(op, () =>
      this.locks.run(id, async () => {
        const campaign = await this.read(id);
        if (campaign === undefined) throw campaignNotFound(id);
        return change(campaign);
      }),
    );
  }
}
