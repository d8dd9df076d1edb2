import {
  applyCampaignPatch,
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
  type CampaignTemplate,
  type FiringOutcome,
  type FiringPage,
  type FiringQuery,
  type NewCampaign,
  type NewCampaignFiring,
} from '@herald/core/campaign';
import type { CampaignStore } from '@herald/core/ports';
import type { RetryOptions } from '@herald/core/retry';
import { type Pool, type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { containsPattern } from './like';
import { mysqlCode } from './mysql-errors';
import { inTransaction, openPool, PoolCalls } from './pool';

const STORE = 'MySqlCampaignStore';
const CAMPAIGN_COLUMNS =
  'id, account_id, name, cron, time_zone, template, enabled, created_at, updated_at, active_from, last_scheduled_at, idempotency_key';
const FIRING_COLUMNS = 'campaign_id, scheduled_at, outcome, task_id, reason, `at`, manual, run_key';

type Rows = RowDataPacket[];

function toCampaign(r: RowDataPacket): Campaign {
  const template = (typeof r.template === 'string' ? JSON.parse(r.template) : r.template) as CampaignTemplate;
  return {
    id: Number(r.id),
    accountId: String(r.account_id),
    name: String(r.name),
    cron: String(r.cron),
    timeZone: String(r.time_zone),
    enabled: Number(r.enabled) === 1,
    template,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    activeFrom: Number(r.active_from),
    ...(r.last_scheduled_at === null ? {} : { lastScheduledAt: Number(r.last_scheduled_at) }),
    ...(r.idempotency_key === null ? {} : { idempotencyKey: String(r.idempotency_key) }),
  };
}

function toFiring(r: RowDataPacket): CampaignFiring {
  return {
    campaignId: Number(r.campaign_id),
    scheduledAt: Number(r.scheduled_at),
    outcome: r.outcome as FiringOutcome,
    taskId: r.task_id === null ? null : Number(r.task_id),
    reason: r.reason === null ? null : String(r.reason),
    at: Number(r.at),
    ...(Number(r.manual) === 1 ? { manual: true as const } : {}),
    ...(r.run_key === null ? {} : { runKey: String(r.run_key) }),
  };
}

/** INSERT IGNOREs one firing row; true when it was stored (not ignored for a duplicate time or run key). */
async function insertFiring(conn: PoolConnection, record: CampaignFiring, runKey: string | null): Promise<boolean> {
  const [result] = await conn.execute<ResultSetHeader>(
    `INSERT IGNORE INTO campaign_firings (${FIRING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      record.campaignId,
      record.scheduledAt,
      record.outcome,
      record.taskId,
      record.reason,
      record.at,
      record.manual === true,
      runKey,
    ],
  );
  return result.affectedRows === 1;
}

/** A campaign's name and template title and body as lower-case text for a search's LIKE. */
const SEARCH_TEXTS = [
  'LOWER(name)',
  "LOWER(COALESCE(JSON_UNQUOTE(JSON_EXTRACT(template, '$.content.title')), ''))",
  "LOWER(JSON_UNQUOTE(JSON_EXTRACT(template, '$.content.body')))",
];
/**
 * The production CampaignStore, on MySQL/MariaDB (mysql2), in the same
 * database as the task store: the `campaigns` and `campaign_firings` tables
 * of migrations 001 and 005. It passes the same conformance suite as the
 * embedded LevelCampaignStore.
 *
 * Writes: an update locks the campaign row (SELECT ... FOR UPDATE), applies
 * core's patch rules and writes the columns it may change (never
 * last_scheduled_at); the compare-and-set of last_scheduled_at is one UPDATE
 * guarded by `last_scheduled_at <=> :expected`, so two controllers cannot
 * both move it; recording a firing share-locks the campaign row (a delete
 * cannot slip in between) and INSERT IGNOREs on the (campaign_id,
 * scheduled_at) primary key, then reads the stored row back: the first
 * record wins. A delete removes the campaign and its firings in one
 * transaction. Connection failures, deadlocks and lock wait timeouts are
 * UNAVAILABLE with `retriable: true`. Opened with `retry` options, every call
 * but `createCampaign` rides out an outage: reads, patches, deletes and
 * INSERT IGNOREs repeat harmlessly, and a repeated compare-and-set answers
 * false rather than moving the mark twice.
 */
export class MySqlCampaignStore implements CampaignStore {
  private readonly calls: PoolCalls;

  private constructor(
    private readonly pool: Pool,
    retry?: RetryOptions,
  ) {
    this.calls = new PoolCalls(STORE, pool, retry);
  }

  /** Connects to a migrated database (005_campaigns.sql applied). Fails like MySqlTaskStore.open, naming `mysql.url` or `mysql.database`. */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlCampaignStore> {
    return new MySqlCampaignStore(await openPool(options), options.retry);
  }

  /** Runs once: an AUTO_INCREMENT insert repeated after a lost reply would store the campaign twice. */
  createCampaign(input: NewCampaign, now: number): Promise<Campaign> {
    return this.calls.run('createCampaign', async () => {
      const record = newCampaignRecord(0, input, now);
      try {
        return await this.insertCampaign(record);
      } catch (error) {
        // The key's unique index refused a second campaign: answer the first. A concurrent insert
        // of the same key waits for the first to commit, so the row is there to read.
        if (record.idempotencyKey === undefined || mysqlCode(error) !== 'ER_DUP_ENTRY') throw error;
        const existing = await this.byIdempotencyKey(record.idempotencyKey);
        if (existing === undefined) throw error;
        return existing;
      }
    });
  }

  getCampaignByIdempotencyKey(key: string): Promise<Campaign | undefined> {
    return this.calls.idempotent('getCampaignByIdempotencyKey', () => this.byIdempotencyKey(key));
  }

  private async byIdempotencyKey(key: string): Promise<Campaign | undefined> {
    if (typeof key !== 'string' || key === '') return undefined;
    const [rows] = await this.pool.execute<Rows>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE idempotency_key = ?`,
      [key],
    );
    return rows.length === 0 ? undefined : toCampaign(rows[0]!);
  }

  private async insertCampaign(record: Campaign): Promise<Campaign> {
    const [result] = await this.pool.execute<ResultSetHeader>(
      'INSERT INTO campaigns (account_id, name, cron, time_zone, template, enabled, created_at, updated_at, active_from, last_scheduled_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
      [
        record.accountId,
        record.name,
        record.cron,
        record.timeZone,
        JSON.stringify(record.template),
        record.enabled,
        record.createdAt,
        record.updatedAt,
        record.activeFrom,
        record.idempotencyKey ?? null,
      ],
    );
    return { ...record, id: Number(result.insertId) };
  }

  getCampaign(id: number): Promise<Campaign | undefined> {
    return this.calls.idempotent('getCampaign', async () => {
      if (!Number.isSafeInteger(id) || id < 1) return undefined;
      const [rows] = await this.pool.execute<Rows>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ?`, [id]);
      return rows.length === 0 ? undefined : toCampaign(rows[0]!);
    });
  }

  listCampaigns(query: CampaignQuery = {}): Promise<CampaignPage> {
    return this.calls.idempotent('listCampaigns', async () => {
      const q = compileCampaignQuery(query);
      if (q.accountIds !== undefined && q.accountIds.length === 0) return { campaigns: [], nextCursor: null };
      const where = ['id > ?'];
      const values: (string | number | boolean)[] = [q.afterId];
      if (q.accountIds !== undefined) {
        where.push(`account_id IN (${q.accountIds.map(() => '?').join(', ')})`);
        values.push(...q.accountIds);
      }
      if (q.enabled !== undefined) {
        where.push('enabled = ?');
        values.push(q.enabled);
      }
      if (q.search !== undefined) {
        // Lower-cased on both sides, like the embedded store's match; a term of digits also matches the id.
        const pattern = containsPattern(q.search.needle);
        where.push(`(${SEARCH_TEXTS.map((text) => `${text} LIKE ?`).join(' OR ')} OR id = ?)`);
        values.push(...SEARCH_TEXTS.map(() => pattern), q.search.id ?? 0);
      }
      // One extra row tells whether a next page exists.
      const [rows] = await this.pool.query<Rows>(
        `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
        [...values, q.limit + 1],
      );
      const campaigns = rows.slice(0, q.limit).map(toCampaign);
      return { campaigns, nextCursor: rows.length > q.limit ? campaigns[campaigns.length - 1]!.id : null };
    });
  }

  updateCampaign(id: number, patch: CampaignPatch, now: number): Promise<Campaign> {
    return this.calls.idempotent('updateCampaign', () =>
      this.transaction(async (conn) => {
        const campaign = await this.lock(conn, id, 'FOR UPDATE');
        const next = applyCampaignPatch(campaign, patch, now);
        await conn.execute(
          'UPDATE campaigns SET name = ?, cron = ?, time_zone = ?, template = ?, enabled = ?, updated_at = ?, active_from = ? WHERE id = ?',
          [
            next.name,
            next.cron,
            next.timeZone,
            JSON.stringify(next.template),
            next.enabled,
            next.updatedAt,
            next.activeFrom,
            id,
          ],
        );
        return next;
      }),
    );
  }

  deleteCampaign(id: number): Promise<boolean> {
    return this.calls.idempotent('deleteCampaign', async () => {
      if (!Number.isSafeInteger(id) || id < 1) return false;
      return this.transaction(async (conn) => {
        const [result] = await conn.execute<ResultSetHeader>('DELETE FROM campaigns WHERE id = ?', [id]);
        if (result.affectedRows === 0) return false;
        await conn.execute('DELETE FROM campaign_firings WHERE campaign_id = ?', [id]);
        return true;
      });
    });
  }

  advanceLastScheduled(id: number, expected: number | null, next: number): Promise<boolean> {
    return this.calls.idempotent('advanceLastScheduled', async () => {
      checkAdvance(expected, next);
      if (!Number.isSafeInteger(id) || id < 1) throw campaignNotFound(id);
      const [result] = await this.pool.execute<ResultSetHeader>(
        'UPDATE campaigns SET last_scheduled_at = ? WHERE id = ? AND last_scheduled_at <=> ?',
        [next, id, expected],
      );
      if (result.affectedRows === 1) return true;
      const [rows] = await this.pool.execute<Rows>('SELECT id FROM campaigns WHERE id = ?', [id]);
      if (rows.length === 0) throw campaignNotFound(id);
      return false;
    });
  }

  recordFiring(firing: NewCampaignFiring): Promise<CampaignFiring> {
    return this.calls.idempotent('recordFiring', async () => {
      const record = newFiringRecord(firing);
      return this.transaction(async (conn) => {
        await this.lock(conn, record.campaignId, 'LOCK IN SHARE MODE');
        const inserted = await insertFiring(conn, record, record.runKey ?? null);
        if (!inserted && record.runKey !== undefined) {
          // Ignored for its time (a record exists: it wins) or for its run key (another firing holds it: stored without).
          await insertFiring(conn, record, null);
        }
        const [rows] = await conn.execute<Rows>(
          `SELECT ${FIRING_COLUMNS} FROM campaign_firings WHERE campaign_id = ? AND scheduled_at = ?`,
          [record.campaignId, record.scheduledAt],
        );
        return toFiring(rows[0]!);
      });
    });
  }

  getFiring(campaignId: number, scheduledAt: number): Promise<CampaignFiring | undefined> {
    return this.calls.idempotent('getFiring', async () => {
      checkCampaignId(campaignId, 'campaignId');
      checkCampaignTime('scheduledAt', scheduledAt);
      const [rows] = await this.pool.execute<Rows>(
        `SELECT ${FIRING_COLUMNS} FROM campaign_firings WHERE campaign_id = ? AND scheduled_at = ?`,
        [campaignId, scheduledAt],
      );
      return rows.length === 0 ? undefined : toFiring(rows[0]!);
    });
  }

  getFiringByRunKey(runKey: string): Promise<CampaignFiring | undefined> {
    return this.calls.idempotent('getFiringByRunKey', async () => {
      if (typeof runKey !== 'string' || runKey === '') return undefined;
      const [rows] = await this.pool.execute<Rows>(`SELECT ${FIRING_COLUMNS} FROM campaign_firings WHERE run_key = ?`, [
        runKey,
      ]);
      return rows.length === 0 ? undefined : toFiring(rows[0]!);
    });
  }

  listFirings(campaignId: number, query: FiringQuery = {}): Promise<FiringPage> {
    return this.calls.idempotent('listFirings', async () => {
      checkCampaignId(campaignId, 'campaignId');
      const q = compileFiringQuery(query);
      const before = q.beforeScheduledAt === undefined ? '' : ' AND scheduled_at < ?';
      const values = q.beforeScheduledAt === undefined ? [campaignId] : [campaignId, q.beforeScheduledAt];
      const [rows] = await this.pool.query<Rows>(
        `SELECT ${FIRING_COLUMNS} FROM campaign_firings WHERE campaign_id = ?${before} ORDER BY scheduled_at DESC LIMIT ?`,
        [...values, q.limit + 1],
      );
      const firings = rows.slice(0, q.limit).map(toFiring);
      return { firings, nextCursor: rows.length > q.limit ? firings[firings.length - 1]!.scheduledAt : null };
    });
  }

  /** Waits for calls in flight, then closes the pool. Any later call fails with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }

  private async lock(conn: PoolConnection, id: number, mode: 'FOR UPDATE' | 'LOCK IN SHARE MODE'): Promise<Campaign> {
    if (Number.isSafeInteger(id) && id > 0) {
      const [rows] = await conn.execute<Rows>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ? ${mode}`, [id]);
      if (rows.length > 0) return toCampaign(rows[0]!);
    }
    throw campaignNotFound(id);
  }

  /** Runs `fn` in a transaction (pool.ts: a deadlock victim runs again). */
  private transaction<T>(fn: (conn: PoolConnection) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }
}
