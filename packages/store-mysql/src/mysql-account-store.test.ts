import { accountDayOf } from '@herald/core/account-quota';
import { accountStoreConformance, rejectsWithCode } from '@herald/testing';
import { migrate } from './migrate';
import { MySqlAccountStore } from './mysql-account-store';
import {
  createEmptyDatabase,
  dropDatabase,
  rawConnection,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

const databases = useSharedDatabases();

accountStoreConformance('MySqlAccountStore', async () => {
  const { name: database, release } = await databases.acquire();
  try {
    return {
      store: await MySqlAccountStore.open({ url: URL_, database, poolSize: 6 }),
      cleanup: release,
    };
  } catch (error) {
    await release();
    throw error;
  }
});

describe('MySqlAccountStore', () => {
  const NOON = 1_699_963_200_000;
  const limits = { dailyBroadcasts: 2, dailyRecipients: 100, minIntervalMs: 0, maxSpeed: 0 };

  it('refuses a database that is not migrated, naming mysql.database', async () => {
    const database = uniqueDatabase();
    await createEmptyDatabase(database);
    try {
      await rejectsWithCode(MySqlAccountStore.open({ url: URL_, database }), 'CONFIG_INVALID');
    } finally {
      await dropDatabase(database);
    }
  });

  it('keeps settings in account_settings and reservations in account_reservations, readable by SQL', async () => {
    const database = uniqueDatabase();
    await migrate(URL_, { database });
    const store = await MySqlAccountStore.open({ url: URL_, database, poolSize: 2 });
    const conn = await rawConnection(database);
    try {
      await store.updateSettings('acme', { limits: { dailyBroadcasts: 4 }, clickThroughRate: 0.035 }, NOON);
      await store.reserve(
        { accountId: 'globex', key: 'api:globex:k1', sendAt: NOON + 1, recipients: 7, at: NOON },
        limits,
        accountDayOf(0, NOON),
      );
      const [settings] = await conn.query(
        'SELECT account_id, limits, click_through_rate, updated_at FROM account_settings ORDER BY account_id',
      );
      // globex's row exists only as its lock: never set, so getSettings answers undefined.
      expect(settings).toEqual([
        { account_id: 'acme', limits: { dailyBroadcasts: 4 }, click_through_rate: 0.035, updated_at: NOON },
        { account_id: 'globex', limits: null, click_through_rate: null, updated_at: null },
      ]);
      expect(await store.getSettings('globex')).toBeUndefined();
      const [reservations] = await conn.query(
        'SELECT account_id, reservation_key, send_at, recipients, reserved_at FROM account_reservations',
      );
      expect(reservations).toEqual([
        { account_id: 'globex', reservation_key: 'api:globex:k1', send_at: NOON + 1, recipients: 7, reserved_at: NOON },
      ]);
    } finally {
      await conn.end();
      await store.close();
      await dropDatabase(database);
    }
  });

  it('admits no more than the quota across two stores (two processes) on one database', async () => {
    const database = uniqueDatabase();
    await migrate(URL_, { database });
    const a = await MySqlAccountStore.open({ url: URL_, database, poolSize: 4 });
    const b = await MySqlAccountStore.open({ url: URL_, database, poolSize: 4 });
    try {
      const day = accountDayOf(0, NOON);
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? a : b).reserve(
            { accountId: 'acme', key: `k${i}`, sendAt: NOON + i, recipients: 1, at: NOON },
            limits,
            day,
          ),
        ),
      );
      expect(answers.filter((x) => x.admitted)).toHaveLength(2);
      expect(await a.usage('acme', day, NOON)).toMatchObject({ broadcasts: 2 });
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(database);
    }
  });
});
