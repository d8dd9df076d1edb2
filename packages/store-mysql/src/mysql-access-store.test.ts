import { accessStoreConformance } from '@herald/testing';
import { migrate } from './migrate';
import { MySqlAccessStore } from './mysql-access-store';
import { dropDatabase, TEST_MYSQL_URL as URL_, uniqueDatabase } from './test-databases';

accessStoreConformance('MySqlAccessStore', async () => {
  const database = uniqueDatabase();
  try {
    await migrate(URL_, { database });
    return {
      store: await MySqlAccessStore.open({ url: URL_, database, poolSize: 4 }),
      cleanup: () => dropDatabase(database),
    };
  } catch (error) {
    await dropDatabase(database);
    throw error;
  }
});
