import { ErrorCodes } from '@herald/core';
import { deviceRegistryConformance, fcmToken } from '@herald/testing';
import { migrate } from './migrate';
import { MySqlDeviceRegistry } from './mysql-device-registry';
import {
  createEmptyDatabase,
  dropDatabase,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

const databases = useSharedDatabases();

deviceRegistryConformance('MySqlDeviceRegistry', async () => {
  const { name: database, release } = await databases.acquire();
  try {
    const open = () => MySqlDeviceRegistry.open({ url: URL_, database, poolSize: 4 });
    return { store: await open(), reopen: open, cleanup: release };
  } catch (error) {
    await release();
    throw error;
  }
});

describe('MySqlDeviceRegistry', () => {
  it('is one registry for every process: what the API registers, an executor reads and prunes', async () => {
    const database = uniqueDatabase();
    await migrate(URL_, { database });
    const api = await MySqlDeviceRegistry.open({ url: URL_, database, now: () => 1_700_000_000_000 });
    const executor = await MySqlDeviceRegistry.open({ url: URL_, database });
    try {
      await api.register({ uin: 9, platform: 'fcm', token: fcmToken(1), accountId: 'acme' });
      const [devices] = await executor.devicesOf(Uint32Array.of(9));
      expect(devices).toEqual([
        { token: fcmToken(1), uin: 9, platform: 'fcm', accountId: 'acme', registeredAt: 1_700_000_000_000 },
      ]);
      expect(await executor.removeDead([fcmToken(1)])).toBe(1);
      expect(await api.devicesOf(Uint32Array.of(9))).toEqual([[]]);
    } finally {
      await api.close();
      await executor.close();
      await dropDatabase(database);
    }
  });

  it('refuses a database that is not migrated, naming mysql.database', async () => {
    const empty = uniqueDatabase();
    await createEmptyDatabase(empty);
    try {
      await expect(MySqlDeviceRegistry.open({ url: URL_, database: empty })).rejects.toMatchObject({
        code: ErrorCodes.CONFIG_INVALID,
        setting: 'mysql.database',
      });
    } finally {
      await dropDatabase(empty);
    }
  });
});
