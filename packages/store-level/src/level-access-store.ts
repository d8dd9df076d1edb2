import { ClassicLevel } from 'classic-level';
import {
  auditMatches,
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
  type StoredAccessToken,
} from '@herald/core/access';
import { ErrorCodes, HeraldError, NotFoundError } from '@herald/core';
import type { AccessStore } from '@herald/core/ports';
import { decodeJson, EMPTY, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, toHeraldError, openLevelDb } from './lifecycle';

/**
 * The embedded AccessStore, on LevelDB (classic-level): API tokens and the
 * audit log in one directory (`<dataDir>/access`). It passes the same
 * conformance suite as the MySQL store.
 *
 * Key layout (tag byte, then big-endian numbers, length-prefixed UTF-16LE strings):
 *
 *   'k' tokenId               -> StoredAccessToken (JSON)
 *   'm' "audit"               -> last audit id handed out (u64)
 *   'a' auditId:u64           -> AuditEntry (JSON)
 *   'b' tokenId auditId:u64   -> ''   an index: one token's entries
 *   'c' accountId auditId:u64 -> ''   an index: one account's entries
 *
 * The audit log pages newest first, so reads walk keys in reverse: a page
 * without a filter is one reverse range read of 'a'; a filtered page walks
 * its index ('b' or 'c', by the filter) in reverse and reads the entries it
 * names (checking the other filter too). A time window (`from`, `to`) is
 * checked on each entry read, with no index of its own: entry times come
 * from the callers' clocks and need not rise with ids, so no walk may stop
 * at the window's edge: a page that the window cannot fill reads the whole
 * log (or the filter's index). An embedded log is one process's, small next
 * to MySQL's, which has an index for it. Appends run under one lock so ids
 * and the persisted counter advance together; a token's create and revoke run
 * under that token's lock.
 */
type Db = ClassicLevel<Buffer, Buffer>;

const TOKENS = prefixRange(key(tag('k')));
const tokenKey = (id: string) => key(tag('k'), { tail: id });
const AUDIT_SEQ = key(tag('m'), { tail: 'audit' });
const AUDIT = prefixRange(key(tag('a')));
const auditKey = (id: number) => key(tag('a'), { u64: id });
const byTokenPrefix = (tokenId: string) => key(tag('b'), { str: tokenId });
const byAccountPrefix = (accountId: string) => key(tag('c'), { str: accountId });

/** Only what listTokens and createToken answer: never the hash. */
function publicToken({ hash: _hash, ...token }: StoredAccessToken): AccessToken {
  return token;
}

export class LevelAccessStore implements AccessStore {
  private readonly life = new Lifecycle('LevelAccessStore');
  private readonly tokenLocks = new KeyedMutex<string>();
  private readonly auditLock = new KeyedMutex<'audit'>();

  private constructor(
    private readonly db: Db,
    private lastAuditId: number,
  ) {}

  /** Opens (creating if needed) the store in directory `path`. UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelAccessStore> {
    const db: Db = await openLevelDb(path, 'LevelAccessStore');
    try {
      const seq = await db.get(AUDIT_SEQ);
      return new LevelAccessStore(db, seq === undefined ? 0 : readU64BE(seq, 0));
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelAccessStore', 'open');
    }
  }

  createToken(input: NewAccessToken): Promise<AccessToken> {
    return this.life.run('createToken', async () => {
      const record = checkNewAccessToken(input);
      return this.tokenLocks.run(record.id, async () => {
        if ((await this.db.get(tokenKey(record.id))) !== undefined) {
          throw new HeraldError(ErrorCodes.TOKEN_EXISTS, `token ${record.id} already exists`, {
            details: { tokenId: record.id },
          });
        }
        await this.db.put(tokenKey(record.id), encodeJson(record));
        return publicToken(record);
      });
    });
  }

  findToken(id: string): Promise<StoredAccessToken | undefined> {
    return this.life.run('findToken', async () => {
      if (typeof id !== 'string' || !TOKEN_ID_PATTERN.test(id)) return undefined;
      const value = await this.db.get(tokenKey(id));
      return value === undefined ? undefined : decodeJson<StoredAccessToken>(value);
    });
  }

  listTokens(): Promise<AccessToken[]> {
    return this.life.run('listTokens', async () => {
      const tokens = (await this.db.values(TOKENS).all()).map((value) =>
        publicToken(decodeJson<StoredAccessToken>(value)),
      );
      return tokens.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    });
  }

  revokeToken(id: string, now: number): Promise<AccessToken> {
    return this.life.run('revokeToken', async () => {
      checkRevokeTime(now);
      const missing = () => new NotFoundError('TOKEN_NOT_FOUND', `token ${String(id)} does not exist`, { tokenId: id });
      if (typeof id !== 'string' || !TOKEN_ID_PATTERN.test(id)) throw missing();
      return this.tokenLocks.run(id, async () => {
        const value = await this.db.get(tokenKey(id));
        if (value === undefined) throw missing();
        const token = decodeJson<StoredAccessToken>(value);
        if (token.revokedAt !== null) return publicToken(token);
        const revoked = { ...token, revokedAt: now };
        await this.db.put(tokenKey(id), encodeJson(revoked));
        return publicToken(revoked);
      });
    });
  }

  appendAudit(input: NewAuditEntry): Promise<AuditEntry> {
    return this.life.run('appendAudit', async () => {
      const checked = checkNewAuditEntry(input);
      return this.auditLock.run('audit', async () => {
        const id = this.lastAuditId + 1;
        const entry: AuditEntry = { id, ...checked };
        const batch = this.db
          .batch()
          .put(auditKey(id), encodeJson(entry))
          .put(AUDIT_SEQ, key({ u64: id }))
          .put(key(tag('b'), { str: entry.tokenId }, { u64: id }), EMPTY);
        if (entry.accountId !== null) batch.put(key(tag('c'), { str: entry.accountId }, { u64: id }), EMPTY);
        await batch.write();
        this.lastAuditId = id;
        return entry;
      });
    });
  }

  listAudit(query: AuditQuery = {}): Promise<AuditPage> {
    return this.life.run('listAudit', async () => {
      const q = compileAuditQuery(query);
      const entries: AuditEntry[] = [];
      let more = false;
      const take = (entry: AuditEntry): boolean => {
        if (!auditMatches(entry, q)) return true;
        if (entries.length === q.limit) {
          more = true;
          return false;
        }
        entries.push(entry);
        return true;
      };
      const index =
        q.tokenId !== undefined
          ? byTokenPrefix(q.tokenId)
          : q.accountId !== undefined
            ? byAccountPrefix(q.accountId)
            : undefined;
      if (index === undefined) {
        for await (const value of this.db.values({ gte: AUDIT.gte, lt: auditKey(q.before), reverse: true }))
          if (!take(decodeJson<AuditEntry>(value))) break;
      } else {
        const range = prefixRange(index);
        for await (const indexKey of this.db.keys({
          gte: range.gte,
          lt: Buffer.concat([index, key({ u64: q.before })]),
          reverse: true,
        })) {
          const value = await this.db.get(auditKey(readU64BE(indexKey, indexKey.length - 8)));
          if (value !== undefined && !take(decodeJson<AuditEntry>(value))) break;
        }
      }
      return { entries, nextCursor: more ? entries[entries.length - 1]!.id : null };
    });
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
