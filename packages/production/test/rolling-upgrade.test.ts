import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { radixSortUint32, uniqueSorted } from '@herald/core/uins';
import type { ListMeta, Task } from '@herald/core/task';
import { readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import { authHeaders, waitFor } from '@herald/testing';
import { DEPLOY, scriptCluster, type ScriptCluster } from './script-cluster';

/**
 * deploy/rolling-upgrade.sh on a running deploy/local-cluster.sh cluster:
 * every one of its 12 processes is drained through its management endpoint
 * and started again, one by one, while broadcasts keep being created and
 * sent. Every broadcast completes, and every recipient of every one is
 * delivered or queued offline: nobody lost. A recipient can repeat only when
 * its batch was in flight at a hand-off (same idempotency key).
 */
jest.setTimeout(480_000);

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];
const EXECUTORS = ['executor-1', 'executor-2'];

describe('deploy/rolling-upgrade.sh', () => {
  let cluster: ScriptCluster;
  let apis: string[] = [];

  beforeAll(async () => {
    cluster = await scriptCluster('ru', { HERALD_UNIT_STALL_MS: '3000', HERALD_DRAIN_TIMEOUT_MS: '20000' });
    const started = await cluster.script('start');
    apis = [...started.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+/g)].map((m) => m[0]);
    // The schedulers own nothing until APTA has agreed on a ring: wait for the ring of three.
    await waitFor(
      async () => {
        const view = (await (await fetch(`${apis[0]}/api/v1/cluster`, { headers: authHeaders() })).json()) as {
          ring: string[];
        };
        return view.ring.length === 3;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'the ring of three schedulers' },
    );
  });

  afterAll(async () => {
    await cluster?.remove();
  });

  /** Calls whichever interface answers: one of them may be draining or restarting. */
  async function call<T>(path: string, init?: RequestInit): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < 200; attempt++) {
      const api = apis[attempt % apis.length]!;
      try {
        const response = await fetch(api + path, { ...init, headers: { ...init?.headers, ...authHeaders() } });
        if (response.status < 500) return (await response.json()) as T;
        last = new Error(`${path}: ${response.status} ${await response.text()}`);
      } catch (error) {
        last = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw last;
  }

  /** A broadcast to `n` users starting at `first` (every 3rd uin), each task its own content. */
  async function broadcast(first: number, n: number): Promise<{ task: Task; uins: number[] }> {
    const uins = Array.from({ length: n }, (_, i) => first + 3 * i);
    const list = await call<ListMeta>('/api/v1/lists?accountId=upgrade', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: encodeRecipientList(uins),
    });
    const task = await call<Task>('/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'upgrade', listId: list.id, content: { body: `upgrade ${first}` } }),
    });
    expect(task.id).toBeGreaterThan(0);
    return { task, uins };
  }

  it('drains and restarts every process during broadcasts, losing nobody', async () => {
    const upgrade = spawn('bash', [join(DEPLOY, 'rolling-upgrade.sh')], {
      env: cluster.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let upgradeLog = '';
    upgrade.stdout.on('data', (c: Buffer) => (upgradeLog += c.toString()));
    upgrade.stderr.on('data', (c: Buffer) => (upgradeLog += c.toString()));
    const upgraded = new Promise<number>((resolve) => upgrade.on('close', (code) => resolve(code ?? -1)));

    // One large broadcast first, then a new one every second until the upgrade is over.
    const sent = [await broadcast(1_000_000, 300_000)];
    let over = false;
    void upgraded.then(() => (over = true));
    while (!over) {
      sent.push(await broadcast(2_000_000 + sent.length * 100_000, 20_000));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const code = await upgraded;
    if (code !== 0) throw new Error(`rolling-upgrade.sh exited ${code}:\n${upgradeLog}`);
    expect(upgradeLog.match(/back in/g)).toHaveLength(12);

    const ended: Task[] = [];
    for (const { task } of sent) {
      let seen: Task | undefined;
      await waitFor(async () => FINAL.includes((seen = await call<Task>(`/api/v1/tasks/${task.id}`)).state), {
        timeoutMs: 120_000,
        intervalMs: 200,
        message: `task ${task.id} did not end (last ${seen?.state})\n${upgradeLog}`,
      });
      ended.push(seen!);
    }
    expect(ended.map((t) => t.state)).toEqual(sent.map(() => 'COMPLETED'));

    // What every executor really did, read once the cluster is stopped (the offline stores are LevelDB).
    await cluster.script('stop');
    const dataDir = join(cluster.dir.path, 'data');
    const stores = await Promise.all(
      EXECUTORS.map((id) => LevelOfflineStore.open(join(dataDir, `offline-${id}`), { rangeBits: 20 })),
    );
    let repeats = 0;
    try {
      for (const { task, uins } of sent) {
        const reached: number[] = [];
        for (const [i, id] of EXECUTORS.entries()) {
          reached.push(...(await readDeliveryFile(join(dataDir, 'deliveries', id), task.id)).uins);
          for await (const part of stores[i]!.scanTask(task.id)) reached.push(...part);
        }
        const sorted = radixSortUint32(Uint32Array.from(reached));
        const distinct = uniqueSorted(sorted.slice());
        expect({ task: task.id, distinct: Array.from(distinct) }).toEqual({ task: task.id, distinct: uins }); // nobody lost, nobody extra
        repeats += sorted.length - distinct.length;
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    process.stdout.write(
      `rolling upgrade: ${sent.length} broadcasts, ${sent.reduce((n, s) => n + s.uins.length, 0)} recipients, ${repeats} repeated\n`,
    );
  });
});
