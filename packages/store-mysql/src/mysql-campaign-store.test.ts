import { campaignStoreConformance, CAMPAIGN_NOW as NOW, newCampaign, rejectsWithCode } from '@herald/testing';
import { migrate } from './migrate';
import { MySqlCampaignStore } from './mysql-campaign-store';
import {
  createEmptyDatabase,
  dropDatabase,
  rawConnection,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

const databases = useSharedDatabases();

campaignStoreConformance('MySqlCampaignStore', async () => {
  const { name: database, release } = await databases.acquire();
  try {
    return {
      store: await MySqlCampaignStore.open({ url: URL_, database, poolSize: 4 }),
      cleanup: release,
    };
  } catch (error) {
    await release();
    throw error;
  }
});

describe('MySqlCampaignStore', () => {
  it('refuses a database that is not migrated, naming mysql.database', async () => {
    const database = uniqueDatabase();
    await createEmptyDatabase(database);
    try {
      await rejectsWithCode(MySqlCampaignStore.open({ url: URL_, database }), 'CONFIG_INVALID');
    } finally {
      await dropDatabase(database);
    }
  });

  it('keeps campaigns in the campaigns table and firings in campaign_firings, readable by SQL', async () => {
    const database = uniqueDatabase();
    await migrate(URL_, { database });
    const store = await MySqlCampaignStore.open({ url: URL_, database, poolSize: 2 });
    const conn = await rawConnection(database);
    try {
      const c = await store.createCampaign(newCampaign(), NOW);
      await store.advanceLastScheduled(c.id, null, NOW + 60_000);
      await store.recordFiring({
        campaignId: c.id,
        scheduledAt: NOW + 60_000,
        outcome: 'fired',
        taskId: 9,
        at: NOW + 60_001,
      });
      const [rows] = await conn.query(
        'SELECT account_id, time_zone, enabled, last_scheduled_at FROM campaigns WHERE id = ?',
        [c.id],
      );
      expect(rows).toEqual([
        { account_id: 'acct-1', time_zone: 'Europe/Berlin', enabled: 1, last_scheduled_at: NOW + 60_000 },
      ]);
      const [firings] = await conn.query('SELECT outcome, task_id FROM campaign_firings WHERE campaign_id = ?', [c.id]);
      expect(firings).toEqual([{ outcome: 'fired', task_id: 9 }]);
    } finally {
      await conn.end();
      await store.close();
      await dropDatabase(database);
    }
  });

  it('refuses calls after close with STORE_CLOSED', async () => {
    const database = uniqueDatabase();
    await migrate(URL_, { database });
    const store = await MySqlCampaignStore.open({ url: URL_, database, poolSize: 1 });
    await store.close();
    await rejectsWithCode(store.getCampaign(1), 'STORE_CLOSED');
    await dropDatabase(database);
  });
});
