import {
  checkNewAccessToken,
  checkNewAuditEntry,
  checkRevokeTime,
  compileAuditQuery,
  TOKEN_ID_PATTERN,
  type AccessToken,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type NewAccessToken,
  type NewAuditEntry,
  type Role,
  type StoredAccessToken,
} from '@herald/core/access';
import { ErrorCodes, HeraldError, NotFoundError } from '@herald/core';
import type { AccessStore } from '@herald/core/ports';
import type { RetryOptions } from '@herald/core/retry';
import { type Pool, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { openPool, PoolCalls } from './pool';
import { mysqlCode } from './mysql-errors';

const STORE = 'MySqlAccessStore';
const TOKEN_COLUMNS = 'id, name, role, accounts, hash, created_at, revoked_at';
const AUDIT_COLUMNS = 'id, `at`, token_id, token_name, action, account_id, resource, status';

type Rows = RowDataPacket[];

function toStoredToken(r: RowDataPacket): StoredAccessToken {
  const accounts = typeof r.accounts === 'string' ? (JSON.parse(r.accounts) as string[]) : (r.accounts as string[]);
  return {
    id: String(r.id),
    name: String(r.name),
    role: r.role as Role,
    accounts,
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    hash: String(r.hash),
  };
}

function publicToken({ hash: _hash, ...token }: StoredAccessToken): AccessToken {
  return token;
}

function toAuditEntry(r: RowDataPacket): AuditEntry {
  return {
    id: Number(r.id),
    at: Number(r.at),
    tokenId: String(r.token_id),
    tokenName: String(r.token_name),
    action: String(r.action),
    accountId: r.account_id === null ? null : String(r.account_id),
    resource: r.resource === null ? null : String(r.resource),
    status: Number(r.status),
  };
}

/**
 * The production AccessStore, on MySQL/MariaDB (mysql2): API tokens and the
 * audit log in the tables of migrations/004_access.sql, in the same database
 * as the task store. It passes the same conformance suite as the embedded
 * LevelAccessStore.
 *
 * Every call is one statement (no transaction needed): a create is an INSERT
 * that the primary key refuses for a taken id (TOKEN_EXISTS); a revoke is an
 * UPDATE guarded by `revoked_at IS NULL`, so the first revoke's time stays;
 * an audit append is an INSERT whose AUTO_INCREMENT id orders the log.
 * Connection failures and lock conflicts are UNAVAILABLE with `retriable: true`.
 * Opened with `retry` options, reads and revokes (idempotent) ride out an
 * outage; creates and audit appends run once.
 */
export class MySqlAccessStore implements AccessStore {
  private readonly calls: PoolCalls;

  private constructor(
    private readonly pool: Pool,
    retry?: RetryOptions,
  ) {
    this.calls = new PoolCalls(STORE, pool, retry);
  }

  /**
   * Connects to a migrated database (004_access.sql applied). Fails like
   * MySqlTaskStore.open, naming `mysql.url` or `mysql.database`.
   */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlAccessStore> {
    return new MySqlAccessStore(await openPool(options), options.retry);
  }

  /** Runs once: repeated after a lost reply it would answer TOKEN_EXISTS for the caller's own token. */
  createToken(input: NewAccessToken): Promise<AccessToken> {
    return this.calls.run('createToken', async () => {
      const t = checkNewAccessToken(input);
      try {
        await this.pool.execute(`INSERT INTO access_tokens (${TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL)`, [
          t.id,
          t.name,
          t.role,
          JSON.stringify(t.accounts),
          t.hash,
          t.createdAt,
        ]);
      } catch (error) {
        if (mysqlCode(error) === 'ER_DUP_ENTRY')
          throw new HeraldError(ErrorCodes.TOKEN_EXISTS, `token ${t.id} already exists`, {
            details: { tokenId: t.id },
          });
        throw error;
      }
      return publicToken(t);
    });
  }

  findToken(id: string): Promise<StoredAccessToken | undefined> {
    return this.calls.idempotent('findToken', async () => {
      if (typeof id !== 'string' || !TOKEN_ID_PATTERN.test(id)) return undefined;
      const [rows] = await this.pool.execute<Rows>(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE id = ?`, [id]);
      return rows.length === 0 ? undefined : toStoredToken(rows[0]!);
    });
  }

  listTokens(): Promise<AccessToken[]> {
    return this.calls.idempotent('listTokens', async () => {
      const [rows] = await this.pool.query<Rows>(`SELECT ${TOKEN_COLUMNS} FROM access_tokens ORDER BY created_at, id`);
      return rows.map((r) => publicToken(toStoredToken(r)));
    });
  }

  revokeToken(id: string, now: number): Promise<AccessToken> {
    return this.calls.idempotent('revokeToken', async () => {
      checkRevokeTime(now);
      const missing = () => new NotFoundError('TOKEN_NOT_FOUND', `token ${String(id)} does not exist`, { tokenId: id });
      if (typeof id !== 'string' || !TOKEN_ID_PATTERN.test(id)) throw missing();
      await this.pool.execute('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, id]);
      const [rows] = await this.pool.execute<Rows>(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE id = ?`, [id]);
      if (rows.length === 0) throw missing();
      return publicToken(toStoredToken(rows[0]!));
    });
  }

  /**
   * Runs once, whatever the retry options: an AUTO_INCREMENT insert whose
   * reply was lost after commit would, repeated, write the audit row twice.
   */
  appendAudit(input: NewAuditEntry): Promise<AuditEntry> {
    return this.calls.run('appendAudit', async () => {
      const e = checkNewAuditEntry(input);
      const [result] = await this.pool.execute<ResultSetHeader>(
        'INSERT INTO audit_log (`at`, token_id, token_name, action, account_id, resource, status) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [e.at, e.tokenId, e.tokenName, e.action, e.accountId, e.resource, e.status],
      );
      return { id: Number(result.insertId), ...e };
    });
  }

  listAudit(query: AuditQuery = {}): Promise<AuditPage> {
    return this.calls.idempotent('listAudit', async () => {
      const q = compileAuditQuery(query);
      const where = ['id < ?'];
      const values: (string | number)[] = [q.before];
      if (q.tokenId !== undefined) {
        where.push('token_id = ?');
        values.push(q.tokenId);
      }
      if (q.accountId !== undefined) {
        where.push('account_id = ?');
        values.push(q.accountId);
      }
      // Only a window the query named: an unbounded one would tempt the optimizer off the primary key.
      if (q.from > 0) {
        where.push('`at` >= ?');
        values.push(q.from);
      }
      if (q.to < Number.MAX_SAFE_INTEGER) {
        where.push('`at` < ?');
        values.push(q.to);
      }
      // One extra row tells whether an older page exists.
      const [rows] = await this.pool.execute<Rows>(
        `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
        [...values, q.limit + 1],
      );
      const entries = rows.slice(0, q.limit).map(toAuditEntry);
      return { entries, nextCursor: rows.length > q.limit ? entries[entries.length - 1]!.id : null };
    });
  }

  /** Waits for calls in flight, then closes the pool. Any later call fails with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }
}
