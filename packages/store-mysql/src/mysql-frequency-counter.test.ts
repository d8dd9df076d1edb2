import { ErrorCodes } from '@herald/core';
import { frequencyCounterConformance, rejectsWithCode, spreadUins, waitFor } from '@herald/testing';
import type { RowDataPacket } from 'mysql2/promise';
import { migrate } from './migrate';
import { MySqlFrequencyCounter } from './mysql-frequency-counter';
import {
  createEmptyDatabase,
  dropDatabase,
  rawConnection,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

const databases = useSharedDatabases();

frequencyCounterConformance('MySqlFrequencyCounter', async () => {
  const { name: database, release } = await databases.acquire();
  try {
    const open = () => MySqlFrequencyCounter.open({ url: URL_, database, poolSize: 4 });
    return { store: await open(), reopen: open, cleanup: release };
  } catch (error) {
    await release();
    throw error;
  }
});

describe('MySqlFrequencyCounter', () => {
  const DAY = 19_792;
  let database: string;
  const opened: MySqlFrequencyCounter[] = [];
  const open = async (retainDays?: number) => {
    const counter = await MySqlFrequencyCounter.open({
      url: URL_,
      database,
      poolSize: 2,
      ...(retainDays === undefined ? {} : { retainDays }),
    });
    opened.push(counter);
    return counter;
  };
  const used = async (counter: MySqlFrequencyCounter, day: number, uins: ArrayLike<number>) => [
    ...(await counter.used(Uint32Array.from(uins), day)),
  ];
  /** Rows per day, read behind the adapter's back. */
  async function rowsByDay(): Promise<Record<number, number>> {
    const conn = await rawConnection(database);
    try {
      const [rows] = await conn.query<RowDataPacket[]>(
        'SELECT day, COUNT(*) AS n FROM frequency_uses GROUP BY day ORDER BY day',
      );
      return Object.fromEntries(rows.map((r) => [Number(r.day), Number(r.n)]));
    } finally {
      await conn.end();
    }
  }

  beforeEach(async () => {
    database = uniqueDatabase();
    await migrate(URL_, { database });
  });
  afterEach(async () => {
    for (const counter of opened.splice(0)) await counter.close();
    await dropDatabase(database);
  });

  it('is one counter for every process: what one consumes, another reads, and neither counts a task twice', async () => {
    const [dispatcherSide, executorA, executorB] = [await open(), await open(), await open()];
    await Promise.all([
      executorA.consume([{ taskId: 1, day: DAY, uins: Uint32Array.of(10, 20, 30) }]),
      executorB.consume([{ taskId: 1, day: DAY, uins: Uint32Array.of(20, 30) }]), // the same task's users, reported by another executor too
      executorB.consume([{ taskId: 2, day: DAY, uins: Uint32Array.of(30) }]),
    ]);
    expect(await used(dispatcherSide, DAY, [10, 20, 30, 40])).toEqual([1, 1, 2, 0]);
    expect(await rowsByDay()).toEqual({ [DAY]: 4 });
  });

  it('reads batches larger than one query, dense and sparse parts alike', async () => {
    const counter = await open();
    const dense = Uint32Array.from({ length: 6000 }, (_, i) => 1_000_000 + i);
    const sparse = spreadUins(7, 6000);
    const all = Uint32Array.from([...dense, ...sparse]).sort();
    const model = new Map<number, number>();
    for (let taskId = 1; taskId <= 3; taskId++) {
      const picked = all.filter((uin, i) => (i + uin) % (taskId + 1) === 0);
      for (const uin of picked) model.set(uin, (model.get(uin) ?? 0) + 1);
      await counter.consume([{ taskId, day: DAY, uins: picked }]);
    }
    expect(await used(counter, DAY, all)).toEqual([...all].map((uin) => model.get(uin) ?? 0));
  });

  it('keeps the newest retainDays days, deleting older ones in the background, and drops a late use of a deleted day', async () => {
    const counter = await open(2);
    expect(counter.retainDays).toBe(2);
    await counter.consume([{ taskId: 1, day: DAY, uins: Uint32Array.of(1, 2) }]);
    await counter.consume([{ taskId: 2, day: DAY + 1, uins: Uint32Array.of(1) }]);
    await counter.consume([{ taskId: 3, day: DAY + 2, uins: Uint32Array.of(1) }]);
    await waitFor(async () => !(DAY in (await rowsByDay())), { message: 'day DAY deleted' });
    expect(await rowsByDay()).toEqual({ [DAY + 1]: 1, [DAY + 2]: 1 });
    expect(await used(counter, DAY, [1, 2])).toEqual([0, 0]);
    await counter.consume([{ taskId: 9, day: DAY, uins: Uint32Array.of(1) }]);
    expect(await rowsByDay()).toEqual({ [DAY + 1]: 1, [DAY + 2]: 1 });

    // A restarted process reads the newest day from the table: the same retention applies.
    const again = await open(2);
    await again.consume([{ taskId: 9, day: DAY, uins: Uint32Array.of(1) }]);
    expect(await used(again, DAY + 2, [1])).toEqual([1]);
    expect(await rowsByDay()).toEqual({ [DAY + 1]: 1, [DAY + 2]: 1 });
  });

  it('rejects a retainDays outside 1..366 with CONFIG_INVALID', async () => {
    for (const retainDays of [0, 367, 1.5]) await rejectsWithCode(open(retainDays), ErrorCodes.CONFIG_INVALID);
  });

  it('refuses a database that is not migrated, naming mysql.database', async () => {
    const empty = uniqueDatabase();
    await createEmptyDatabase(empty);
    try {
      await expect(MySqlFrequencyCounter.open({ url: URL_, database: empty })).rejects.toMatchObject({
        code: ErrorCodes.CONFIG_INVALID,
        setting: 'mysql.database',
      });
    } finally {
      await dropDatabase(empty);
    }
  });
});
