import { join } from 'node:path';
import { uniqueSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import { makeTempDir, PrivateMariaDb, ProcessCluster, type TempDir } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { broadcastThroughOutage, startWithAudience, uniqueNames } from './scenario';

/**
 * MySQL restarted in the middle of a broadcast (a private MariaDB, so no other
 * test is disturbed): every process rides out the outage, the broadcast
 * completes, and no recipient is lost or delivered twice.
 */
jest.setTimeout(300_000);

describe('production profile: MySQL restarted mid-broadcast', () => {
  let dir: TempDir;
  let db: PrivateMariaDb;
  let cluster: ProcessCluster;
  const names = uniqueNames('restart');
  const audience = syntheticAudience({ recipients: 200_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 9 });
  const { kept, online, offline } = expectedOutcome(audience);

  beforeAll(async () => {
    dir = await makeTempDir('herald-mysql-restart-');
    db = await PrivateMariaDb.start();
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 2, dispatchers: 1, executors: 2, controllers: 1 },
      names,
    );
    await startWithAudience(cluster, audience, {
      mysql: { url: db.url, database: names.database },
      dispatcher: { batchSize: 100, unitSize: 25_000 },
    });
  });

  afterAll(async () => {
    await cluster?.stopAll();
    await db?.destroy();
    await dir?.remove();
  });

  it('completes with exactly the right deliveries and offline entries', async () => {
    const { task, stateAtOutage } = await broadcastThroughOutage(cluster, audience, () => db.restart());
    expect(stateAtOutage).toBe('SENDING');
    expect(task.state).toBe('COMPLETED');
    expect(task.report).toMatchObject({ kept: kept.length, delivered: online.length, offline: offline.length });

    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task.id);
    expect(delivered.length).toBe(online.length); // nothing crashed, so nothing was delivered twice
    expect(uniqueSorted(delivered.slice())).toEqual(online);
    expect(queued).toEqual(offline);
  });
});
