import { accessStoreConformance } from '@herald/testing';
import { MySqlAccessStore } from './mysql-access-store';
import { TEST_MYSQL_URL as URL_, useSharedDatabases } from './test-databases';

const databases = useSharedDatabases();

accessStoreConformance('MySqlAccessStore', async () => {
  const { name: database, release } = await databases.acquire();
  try {
    return {
      store: await MySqlAccessStore.open({ url: URL_, database, poolSize: 4 }),
      cleanup: release,
    };
  } catch (error) {
    await release();
    throw error;
  }
});
