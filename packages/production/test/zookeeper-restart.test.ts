import { join } from 'node:path';
import { uniqueSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import { makeTempDir, ProcessCluster, TestZooKeeper, type TempDir } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { broadcastThroughOutage, startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * ZooKeeper restarted in the middle of a broadcast (a private ZooKeeper, so no
 * other test is disturbed): schedulers keep writing checkpoints once it is
 * back, the controller's leadership returns, and the broadcast completes with
 * no recipient lost or delivered twice.
 */
jest.setTimeout(300_000);

describe('production profile: ZooKeeper restarted mid-broadcast', () => {
  let dir: TempDir;
  let zk: TestZooKeeper;
  let cluster: ProcessCluster;
  const names = uniqueNames('zk');
  const audience = syntheticAudience({ recipients: 200_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 13 });
  const { kept, online, offline } = expectedOutcome(audience);

  beforeAll(async () => {
    dir = await makeTempDir('herald-zk-restart-');
    zk = await TestZooKeeper.start();
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 2, dispatchers: 1, executors: 2, controllers: 2 },
      names,
    );
    await startWithAudience(cluster, audience, {
      zookeeper: { connectionString: zk.connectionString, root: names.zkRoot, sessionTimeoutMs: 6000 },
      dispatcher: { batchSize: 100, unitSize: 25_000 },
    });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await zk?.destroy();
  });

  it('completes with exactly the right deliveries and offline entries', async () => {
    const { task, stateAtOutage } = await broadcastThroughOutage(cluster, audience, () => zk.restart());
    expect(stateAtOutage).toBe('SENDING');
    expect(task.state).toBe('COMPLETED');
    expect(task.report).toMatchObject({ kept: kept.length, delivered: online.length, offline: offline.length });

    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task.id);
    expect(uniqueSorted(delivered.slice())).toEqual(online);
    expect(delivered.length).toBe(online.length);
    expect(queued).toEqual(offline);
  });
});
