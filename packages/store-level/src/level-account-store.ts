import { ClassicLevel } from 'classic-level';
import {
  applySettingsPatch,
  checkAccountDay,
  checkAccountId,
  checkQuotaTime,
  checkReservation,
  checkReservationKey,
  decideReservation,
  RESERVATION_RETENTION_MS,
  type AccountDay,
  type AccountLimits,
  type AccountSettings,
  type AccountSettingsPatch,
  type AccountUsage,
  type BroadcastReservation,
  type ReserveResult,
} from '@herald/core/account-quota';
import type { AccountStore } from '@herald/core/ports';
import { decodeJson, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, openLevelDb } from './lifecycle';

/**
 * The embedded AccountStore, on LevelDB (classic-level): one directory, one
 * process. It passes the same conformance suite as MySqlAccountStore.
 *
 * Key layout (tag byte first; an account id length-prefixed; times u64
 * big-endian, so an account's reservations iterate in send-time order):
 *
 *   's' accountId                      -> AccountSettings (JSON)
 *   'r' accountId sendAt:u64 key(tail) -> { recipients, at } (JSON)   by send time: a day's usage, the nearest broadcasts
 *   'k' accountId key(tail)            -> sendAt:u64                   by key: idempotency and release
 *
 * Atomicity: every write of one account (a settings patch, a reservation
 * with its check, a release) runs under that account's in-process lock and
 * ends in one put or batch; LevelDB's LOCK file keeps other processes out.
 * A reservation's batch also drops the account's reservations sent more than
 * RESERVATION_RETENTION_MS before it.
 */
type Db = ClassicLevel<Buffer, Buffer>;

interface StoredReservation {
  recipients: number;
  at: number;
}

const settingsKey = (accountId: string) => key(tag('s'), { str: accountId });
const bySendTime = (accountId: string) => key(tag('r'), { str: accountId });
const sendTimeKey = (accountId: string, sendAt: number) => key(tag('r'), { str: accountId }, { u64: sendAt });
const reservationKey = (accountId: string, sendAt: number, k: string) =>
  key(tag('r'), { str: accountId }, { u64: sendAt }, { tail: k });
const byKey = (accountId: string, k: string) => key(tag('k'), { str: accountId }, { tail: k });

/** Where the send time sits in an 'r' key: after the tag, the length prefix and the id's UTF-16 units. */
const sendAtOffset = (accountId: string) => 1 + 4 + accountId.length * 2;

export class LevelAccountStore implements AccountStore {
  private readonly life = new Lifecycle('LevelAccountStore');
  private readonly locks = new KeyedMutex<string>();

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the store in directory `path`. Fails with UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelAccountStore> {
    const db: Db = await openLevelDb(path, 'LevelAccountStore');
    return new LevelAccountStore(db);
  }

  getSettings(accountId: string): Promise<AccountSettings | undefined> {
    return this.life.run('getSettings', async () => {
      checkAccountId(accountId);
      const value = await this.db.get(settingsKey(accountId));
      return value === undefined ? undefined : decodeJson<AccountSettings>(value);
    });
  }

  updateSettings(accountId: string, patch: AccountSettingsPatch, now: number): Promise<AccountSettings> {
    return this.life.run('updateSettings', async () => {
      checkAccountId(accountId);
      return this.locks.run(accountId, async () => {
        const stored = await this.db.get(settingsKey(accountId));
        const next = applySettingsPatch(
          accountId,
          stored === undefined ? undefined : decodeJson<AccountSettings>(stored),
          patch,
          now,
        );
        await this.db.put(settingsKey(accountId), encodeJson(next));
        return next;
      });
    });
  }

  reserve(reservation: BroadcastReservation, limits: AccountLimits, day: AccountDay): Promise<ReserveResult> {
    return this.life.run('reserve', async () => {
      checkReservation(reservation, limits, day);
      const { accountId, key: k, sendAt } = reservation;
      return this.locks.run(accountId, async () => {
        const existing = (await this.db.get(byKey(accountId, k))) !== undefined;
        const usage = await this.readUsage(accountId, day, sendAt);
        const result = decideReservation(reservation, limits, day, usage, existing);
        if (!result.admitted || result.repeated) return result;
        const stored: StoredReservation = { recipients: reservation.recipients, at: reservation.at };
        await this.db.batch([
          ...(await this.expired(accountId, reservation.at - RESERVATION_RETENTION_MS)),
          { type: 'put', key: reservationKey(accountId, sendAt, k), value: encodeJson(stored) },
          { type: 'put', key: byKey(accountId, k), value: key({ u64: sendAt }) },
        ]);
        return result;
      });
    });
  }

  release(accountId: string, k: string): Promise<boolean> {
    return this.life.run('release', async () => {
      checkAccountId(accountId);
      checkReservationKey(k);
      return this.locks.run(accountId, async () => {
        const sendAt = await this.db.get(byKey(accountId, k));
        if (sendAt === undefined) return false;
        await this.db.batch([
          { type: 'del', key: reservationKey(accountId, readU64BE(sendAt, 0), k) },
          { type: 'del', key: byKey(accountId, k) },
        ]);
        return true;
      });
    });
  }

  usage(accountId: string, day: AccountDay, around: number): Promise<AccountUsage> {
    return this.life.run('usage', async () => {
      checkAccountId(accountId);
      checkAccountDay(day, day.from);
      checkQuotaTime('around', around);
      return this.readUsage(accountId, day, around);
    });
  }

  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }

  private async readUsage(accountId: string, day: AccountDay, around: number): Promise<AccountUsage> {
    const all = prefixRange(bySendTime(accountId));
    let broadcasts = 0;
    let recipients = 0;
    for await (const value of this.db.values({
      gte: sendTimeKey(accountId, day.from),
      lt: sendTimeKey(accountId, day.to),
    })) {
      broadcasts++;
      recipients += decodeJson<StoredReservation>(value).recipients;
    }
    const [previous] = await this.db
      .keys({ gte: all.gte, lt: sendTimeKey(accountId, around + 1), reverse: true, limit: 1 })
      .all();
    const [next] = await this.db
      .keys({ gte: sendTimeKey(accountId, around), ...(all.lt === undefined ? {} : { lt: all.lt }), limit: 1 })
      .all();
    const at = sendAtOffset(accountId);
    return {
      broadcasts,
      recipients,
      previousSendAt: previous === undefined ? null : readU64BE(previous, at),
      nextSendAt: next === undefined ? null : readU64BE(next, at),
    };
  }

  /** Deletes of the account's reservations sent before `before` (and their key entries). */
  private async expired(accountId: string, before: number): Promise<{ type: 'del'; key: Buffer }[]> {
    if (before <= 0) return [];
    const at = sendAtOffset(accountId);
    const deletes: { type: 'del'; key: Buffer }[] = [];
    for await (const k of this.db.keys({ gte: bySendTime(accountId), lt: sendTimeKey(accountId, before) })) {
      deletes.push(
        { type: 'del', key: k },
        { type: 'del', key: byKey(accountId, k.subarray(at + 8).toString('utf16le')) },
      );
    }
    return deletes;
  }
}
