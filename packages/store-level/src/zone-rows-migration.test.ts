import { makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { ClassicLevel } from 'classic-level';
import { FORMAT_KEY, zoneRowKey } from './attribute-keys';
import { LevelAttributeIndex } from './level-attribute-index';
import { encodeZoneRow } from './zone-rows';

const C = 65_536;
const ZONES = ['tz=+05:30', 'tz=Asia/Tokyo', 'tz=Europe/Berlin'];
// Chunks far apart (past one 256-chunk build window), the space's last chunk and uin included.
const USERS = [
  { uin: 1, tz: 'Europe/Berlin', region: 'x' },
  { uin: 2, tz: '+05:30' },
  { uin: 3, region: 'y' },
  { uin: C + 4, tz: 'Asia/Tokyo' },
  { uin: 300 * C + 5, tz: 'Europe/Berlin' },
  { uin: 300 * C + 6, tz: 'Asia/Tokyo', region: 'x' },
  ...Array.from({ length: 5000 }, (_, i) => ({ uin: 301 * C + i * 13, tz: 'Asia/Tokyo' })), // a dense chunk
  { uin: 2 ** 32 - 1, tz: '+05:30' },
];
const Z = 'z'.charCodeAt(0);

type Raw = ClassicLevel<Buffer, Buffer>;

async function withRaw<T>(path: string, use: (db: Raw) => Promise<T>): Promise<T> {
  const db: Raw = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

/** Every row of the database, as hex, to compare two states. */
const allRows = (db: Raw) =>
  db
    .iterator()
    .all()
    .then((rows) => rows.map(([k, v]) => [k.toString('hex'), v.toString('hex')]));
const zoneRows = (db: Raw) => db.iterator({ gte: Buffer.of(Z), lt: Buffer.of(Z + 1) }).all();

describe('LevelAttributeIndex: the zone rows of an index written before them', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-zone-rows-');
  });
  afterEach(() => dir.remove());

  /** What the readers see: the zones alone and among other keys, whole and in windows cutting chunks. */
  async function reads(): Promise<unknown> {
    const index = await LevelAttributeIndex.open(dir.path);
    try {
      const asRead = (rows: { key: string; chunk: number; bytes: Uint8Array }[]) =>
        rows.map((r) => [r.chunk, r.key, Buffer.from(r.bytes).toString('hex')]);
      return {
        zones: asRead(await index.readChunks(ZONES, 0, C)),
        mixed: asRead(await index.readChunks(['*', 'region=x', ...ZONES], 0, C)),
        window: asRead(await index.readChunks(['tz=Asia/Tokyo', 'region=x'], 1, 301)),
        keys: await index.keysWithPrefix('tz='),
      };
    } finally {
      await index.close();
    }
  }

  /** Fills the index, then takes it back to the old layout: no 'z' rows, no format key. */
  async function writeOldLayout(): Promise<{ before: unknown; zoneRows: [Buffer, Buffer][] }> {
    const index = await LevelAttributeIndex.open(dir.path);
    await index.putUsers(USERS);
    await index.close();
    const before = await reads();
    const rows = await withRaw(dir.path, async (db) => {
      const found = await zoneRows(db);
      await db.batch([...found.map(([key]) => ({ type: 'del' as const, key })), { type: 'del', key: FORMAT_KEY }]);
      return found;
    });
    return { before, zoneRows: rows };
  }

  it('builds the zone rows on open: reads answer as before, and a second open changes nothing', async () => {
    const old = await writeOldLayout();
    expect(old.zoneRows.map(([key]) => key.readUInt32BE(1))).toEqual([0, 1, 300, 301, C - 1]);
    expect(await withRaw(dir.path, zoneRows)).toEqual([]);
    expect(await reads()).toEqual(old.before);
    const migrated = await withRaw(dir.path, allRows);
    expect(await withRaw(dir.path, zoneRows)).toEqual(old.zoneRows);
    expect(await withRaw(dir.path, (db) => db.get(FORMAT_KEY))).toEqual(Buffer.of(0, 0, 0, 1));
    await (await LevelAttributeIndex.open(dir.path)).close();
    expect(await withRaw(dir.path, allRows)).toEqual(migrated);
  });

  it('rebuilds after a crash part-way: stale and stray zone rows left without the format key are replaced', async () => {
    const old = await writeOldLayout();
    await withRaw(dir.path, async (db) => {
      await db.put(zoneRowKey(0), encodeZoneRow([{ key: 'tz=Europe/Berlin', bytes: Uint8Array.of(9, 0) }])!);
      await db.put(zoneRowKey(7), encodeZoneRow([{ key: 'tz=Asia/Tokyo', bytes: Uint8Array.of(1, 0) }])!);
    });
    expect(await reads()).toEqual(old.before);
    expect(await withRaw(dir.path, zoneRows)).toEqual(old.zoneRows);
  });

  it('writes only the format key in a fresh index', async () => {
    await (await LevelAttributeIndex.open(dir.path)).close();
    expect(await withRaw(dir.path, allRows)).toEqual([[FORMAT_KEY.toString('hex'), '00000001']]);
  });

  it('refuses an index in a format it does not know, and lets go of its directory', async () => {
    await (await LevelAttributeIndex.open(dir.path)).close();
    await withRaw(dir.path, (db) => db.put(FORMAT_KEY, Buffer.of(0, 0, 0, 2)));
    await rejectsWithCode(LevelAttributeIndex.open(dir.path), 'UNAVAILABLE');
    expect(await withRaw(dir.path, (db) => db.get(FORMAT_KEY))).toEqual(Buffer.of(0, 0, 0, 2));
  });
});
