import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList, uniqueSorted, type ListMeta, type Task } from '@herald/core';
import { syntheticAudience } from '@herald/audience';
import { makeTempDir, ProcessCluster, TestZooKeeper, type TempDir, waitFor } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';

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
  const tag = randomBytes(4).toString('hex');
  const names = { database: `herald_zk_${tag}`, zkRoot: `/herald-zk-${tag}`, topicPrefix: `zk${tag}.` };
  const audience = syntheticAudience({ recipients: 200_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 13 });
  const { kept, online, offline } = expectedOutcome(audience);

  beforeAll(async () => {
    dir = await makeTempDir('herald-zk-restart-');
    zk = await TestZooKeeper.start();
    cluster = new ProcessCluster(dir.path, { interfaces: 1, schedulers: 2, dispatchers: 1, executors: 2, controllers: 2 }, names);
    await cluster.configure({ zookeeper: { connectionString: zk.connectionString, root: names.zkRoot, sessionTimeoutMs: 6000 }, dispatcher: { batchSize: 100, unitSize: 25_000 } });
    await cluster.keysAndSchema();
    await cluster.publishOnline(audience.online);
    await cluster.startAll();
    await cluster.waitForPresence();
  });

  afterAll(async () => {
    await cluster?.stopAll();
    await zk?.destroy();
    const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL! });
    await pool.query(`DROP DATABASE IF EXISTS \`${names.database}\``);
    await pool.end();
    await dir?.remove();
  });

  const api = async <T>(path: string, init?: RequestInit): Promise<T> => (await (await fetch(cluster.url + path, init)).json()) as T;

  it('completes with exactly the right deliveries and offline entries', async () => {
    const binary = { 'content-type': 'application/octet-stream' };
    await api('/api/v1/blacklists/global', { method: 'PUT', headers: binary, body: encodeRecipientList(audience.blacklist) });
    const list = await api<ListMeta>('/api/v1/lists?accountId=acme', { method: 'POST', headers: binary, body: encodeRecipientList(audience.list) });
    const created = await api<Task>('/api/v1/tasks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'zk restart' } }) });

    let task: Task | undefined;
    await waitFor(async () => {
      task = await api<Task>(`/api/v1/tasks/${created.id}`);
      return task.state === 'SENDING' && task.report.delivered + task.report.offline > 0;
    }, { timeoutMs: 60_000, intervalMs: 20, message: `broadcast did not start sending\n${cluster.logs()}` });
    const stateAtRestart = task!.state;
    await zk.restart();

    await waitFor(async () => {
      task = await api<Task>(`/api/v1/tasks/${created.id}`);
      return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
    }, { timeoutMs: 180_000, intervalMs: 200, message: `broadcast did not finish after the restart (last: ${task?.state})\n${cluster.logs()}` });
    expect(stateAtRestart).toBe('SENDING');
    expect(task!.state).toBe('COMPLETED');
    expect(task!.report).toMatchObject({ kept: kept.length, delivered: online.length, offline: offline.length });

    const { delivered, queued } = await actualOutcome(cluster, join(dir.path, 'data'), task!.id);
    expect(uniqueSorted(delivered.slice())).toEqual(online);
    expect(delivered.length).toBe(online.length);
    expect(queued).toEqual(offline);
  });
});
