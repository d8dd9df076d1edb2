import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, listBytes, offlineUins, sinkUins, upload, waitForEnd } from './helpers';

/**
 * Superseding and expiring messages on the embedded profile (docs/delivery.md,
 * "Collapse keys" and "Expiry and purge"): two broadcasts of one account with
 * the same collapse key to offline users leave each user only the newest;
 * another key, another account's same key and a task without a key are left
 * alone; an expired task's offline entries are purged in the background.
 */
describe('collapse keys and the offline purge', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  /** The cluster's clock runs this far ahead of the wall clock: moved to expire tasks. */
  let shift = 0;
  // Nobody is online: every recipient is queued offline. Two ranges of the offline store (rangeBits 8).
  const everyone = Array.from({ length: 400 }, (_, i) => 1000 + i);
  const half = everyone.filter((_, i) => i % 2 === 0);

  beforeAll(async () => {
    dir = await makeTempDir('herald-collapse-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        dispatcher: { batchSize: 64, unitSize: 128 },
        offline: { rangeBits: 8, purgeIntervalMs: 50, purgeMaxRecords: 4 },
      },
      { clock: { now: () => Date.now() + shift } },
    );
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  let sent = 0;
  async function broadcast(accountId: string, uins: number[], fields: Record<string, unknown>): Promise<Task> {
    const list = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId,
      listId: list.body.id,
      // Each its own content: the no-resend filter would drop the users of a second task with the same one.
      content: { body: `message ${++sent}` },
      ...fields,
    });
    expect(created.status).toBe(201);
    const task = await waitForEnd(cluster, created.body.id);
    expect(task).toMatchObject({ state: 'COMPLETED', report: { offline: uins.length } });
    return task;
  }

  it('leaves each user exactly the newest entry of a collapse key, and delivers only it at login', async () => {
    const older = await broadcast('acme', everyone, { collapseKey: 'score' });
    const newer = await broadcast('acme', half, { collapseKey: 'score' });
    const otherKey = await broadcast('acme', half, { collapseKey: 'news' });
    const otherAccount = await broadcast('beta', everyone, { collapseKey: 'score' });
    const plain = await broadcast('acme', half, {});

    // Superseded in the store, not only at login: the older task keeps the users the newer one did not reach.
    const rest = everyone.filter((_, i) => i % 2 === 1);
    expect([...(await offlineUins(cluster, older.id))]).toEqual(rest);
    expect([...(await offlineUins(cluster, newer.id))]).toEqual(half);

    const result = await cluster.login(everyone);
    // half: newer + news + beta + plain; the rest: older + beta.
    expect(result).toEqual({ delivered: half.length * 4 + rest.length * 2, expired: 0, overFrequency: 0, held: 0 });
    expect([...(await sinkUins(cluster, older.id))]).toEqual(rest);
    expect([...(await sinkUins(cluster, newer.id))]).toEqual(half);
    expect([...(await sinkUins(cluster, otherKey.id))]).toEqual(half);
    expect([...(await sinkUins(cluster, otherAccount.id))]).toEqual(everyone);
    expect([...(await sinkUins(cluster, plain.id))]).toEqual(half);
    for (const task of [older, newer, otherKey, otherAccount, plain])
      expect((await offlineUins(cluster, task.id)).length).toBe(0);
  });

  it('purges an expired task from the offline lists in the background, counting the entries', async () => {
    const purgedBefore = await purgedEntries();
    for (const uin of everyone) cluster.online.setOnline(uin, false); // logged in by the test above
    const expiring = await broadcast('acme', everyone, { ttlSeconds: 60 });
    const lasting = await broadcast('acme', half, { ttlSeconds: 3600 });
    shift = 120_000;
    await waitFor(async () => (await offlineUins(cluster, expiring.id)).length === 0, {
      timeoutMs: 30_000,
      message: 'the expired task was not purged',
    });
    await waitFor(async () => (await purgedEntries()) - purgedBefore === everyone.length, {
      timeoutMs: 30_000,
      message: 'the purged entries were not counted',
    });
    expect([...(await offlineUins(cluster, lasting.id))]).toEqual(half);
    expect((await cluster.offline.pending(everyone[1]!)).length).toBe(0);
  });

  async function purgedEntries(): Promise<number> {
    const { body } = await cluster.meter.exposition();
    const line = body.split('\n').find((l) => l.startsWith('herald_executor_offline_purged_entries_total'));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  }
});
