import { ClassicLevel } from 'classic-level';
import { AbstractDeviceRegistry } from '@herald/core/adapter';
import { MAX_DEVICES_PER_UIN, type Device, type DevicePlatform, type RegisterResult } from '@herald/core/ports';
import { decodeJson, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { openLevelDb, toHeraldError } from './lifecycle';

/**
 * The embedded DeviceRegistry, on LevelDB (classic-level).
 *
 * Key layout (tag byte, then big-endian numbers; the token as the key's tail):
 *
 *   't' token       -> JSON { uin, platform, accountId?, registeredAt, seq }
 *   'u' uin seq     -> token   : a user's devices, oldest registration first
 *   's'             -> u64 seq : the last registration number handed out
 *
 * `seq` orders registrations (a clock could go back; a counter cannot), so
 * a user's devices are one key range in registration order: the batch read
 * walks one range per user, and the oldest device beyond the limit is the
 * range's first key. Writes run one at a time under a mutex (registering
 * reads the token's old entry and the user's range, then writes one batch);
 * LevelDB's LOCK file keeps other processes out, so that is enough.
 */

type Db = ClassicLevel<Buffer, Buffer>;

interface StoredDevice {
  uin: number;
  platform: DevicePlatform;
  accountId?: string;
  registeredAt: number;
  seq: number;
}

const STORE = 'LevelDeviceRegistry';
const SEQ_KEY = key(tag('s'));
const tokenKey = (token: string) => key(tag('t'), { tail: token });
const userKey = (uin: number, seq: number) => key(tag('u'), { u32: uin }, { u64: seq });
const userPrefix = (uin: number) => key(tag('u'), { u32: uin });
const encodeU64 = (n: number) => key({ u64: n });

export class LevelDeviceRegistry extends AbstractDeviceRegistry {
  private readonly writes = new KeyedMutex<'all'>();

  private constructor(
    private readonly db: Db,
    private lastSeq: number,
    now: (() => number) | undefined,
  ) {
    super({ name: STORE, translate: (error, op) => toHeraldError(error, STORE, op), ...(now ? { now } : {}) });
  }

  /** Opens (creating if needed) the registry in directory `path`; UNAVAILABLE if another process holds it. */
  static async open(path: string, options: { now?: () => number } = {}): Promise<LevelDeviceRegistry> {
    const db: Db = await openLevelDb(path, STORE);
    try {
      const seq = await db.get(SEQ_KEY);
      return new LevelDeviceRegistry(db, seq === undefined ? 0 : readU64BE(seq, 0), options.now);
    } catch (error) {
      await db.close();
      throw toHeraldError(error, STORE, 'open');
    }
  }

  protected _register(device: Device): Promise<RegisterResult> {
    return this.writes.run('all', async () => {
      const batch = this.db.batch();
      const previous = await this.stored(device.token);
      if (previous !== undefined) batch.del(userKey(previous.uin, previous.seq));
      const seq = ++this.lastSeq;
      const { token, uin, ...rest } = device;
      batch.put(tokenKey(token), encodeJson({ ...rest, uin, seq } satisfies StoredDevice));
      batch.put(userKey(uin, seq), Buffer.from(token, 'utf8'));
      batch.put(SEQ_KEY, encodeU64(seq));
      // The user's other devices, oldest first: those beyond the limit (counting the new one) go.
      const others = (await this.db.values(prefixRange(userPrefix(uin))).all())
        .map((value) => value.toString('utf8'))
        .filter((other) => other !== token);
      const replaced = others.slice(0, Math.max(0, others.length - (MAX_DEVICES_PER_UIN - 1)));
      for (const old of replaced) {
        const entry = (await this.stored(old))!;
        batch.del(tokenKey(old));
        batch.del(userKey(entry.uin, entry.seq));
      }
      await batch.write();
      return { replaced };
    });
  }

  protected async _devicesOf(sortedUins: Uint32Array): Promise<Device[][]> {
    const answers: Device[][] = [];
    for (let i = 0; i < sortedUins.length; i++) {
      const uin = sortedUins[i]!;
      if (i > 0 && sortedUins[i - 1] === uin) {
        answers.push(answers[i - 1]!.map((d) => ({ ...d })));
        continue;
      }
      const tokens = (await this.db.values(prefixRange(userPrefix(uin))).all()).map((v) => v.toString('utf8'));
      const devices: Device[] = [];
      for (const token of tokens) {
        const entry = await this.stored(token);
        if (entry === undefined) continue;
        const { seq: _seq, ...rest } = entry;
        devices.push({ token, ...rest });
      }
      answers.push(devices);
    }
    return answers;
  }

  protected _removeTokens(tokens: readonly string[]): Promise<number> {
    return this.writes.run('all', async () => {
      const batch = this.db.batch();
      let removed = 0;
      for (const token of new Set(tokens)) {
        const entry = await this.stored(token);
        if (entry === undefined) continue;
        batch.del(tokenKey(token));
        batch.del(userKey(entry.uin, entry.seq));
        removed++;
      }
      await batch.write();
      return removed;
    });
  }

  protected async _close(): Promise<void> {
    await this.db.close();
  }

  private async stored(token: string): Promise<StoredDevice | undefined> {
    const value = await this.db.get(tokenKey(token));
    return value === undefined ? undefined : decodeJson<StoredDevice>(value);
  }
}
