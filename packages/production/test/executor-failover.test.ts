import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList, uniqueSorted, type ListMeta, type Task } from '@herald/core';
import { syntheticAudience } from '@herald/audience';
import { readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import { authHeaders, makeTempDir, ProcessCluster, waitFor, type TempDir } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * An executor lost for good (docs/operations.md, "An executor lost"), with real
 * processes: the executor holding a running broadcast's unfinished units is
 * killed with SIGKILL and not restarted. Its units stall (no progress for
 * scheduler.unitStallMs); the dispatcher, which hears no load report from it
 * any more, proposes the live executor; the scheduler moves the units there,
 * and they run from their checkpoints. The broadcast completes, every
 * recipient reached once but for the batch the killed executor had in hand.
 * Started again afterwards, the killed executor drops the batches ZeroMQ had
 * queued for it (the store names another executor for their units): it
 * delivers and queues nothing more of the task, but still delivers its
 * offline lists at logins.
 */
jest.setTimeout(300_000);

const BATCH = 1000;
const UNIT = 25_000;
/** Paced so the kill lands mid-broadcast on any machine: ~5 s for the ~294,000 kept recipients. */
const SPEED = 60_000;
/** Delivery records (8 bytes each) in the sinks when the executor is killed: ~a fifth of the online recipients. */
const DELIVERED_AT_KILL = 20_000;
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

async function api<T>(cluster: ProcessCluster, path: string, init?: RequestInit): Promise<T> {
  return (await (await fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } })).json()) as T;
}

/** Everything one executor left for a task: its delivery records and its offline entries (read while it is stopped). */
async function leftBy(dataDir: string, executorId: string, taskId: number): Promise<{ delivered: number; atLogin: number; queued: number }> {
  const sink = await readDeliveryFile(join(dataDir, 'deliveries', executorId), taskId);
  const store = await LevelOfflineStore.open(join(dataDir, `offline-${executorId}`), { rangeBits: 12 });
  let queued = 0;
  for await (const part of store.scanTask(taskId)) queued += part.length;
  await store.close();
  return { delivered: sink.uins.length, atLogin: sink.atLogin.reduce((n, b) => n + b, 0), queued };
}

describe('an executor lost for good', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('execlost');
  const audience = syntheticAudience({ recipients: 300_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 29 });
  const config = {
    dispatcher: { batchSize: BATCH, unitSize: UNIT },
    accounts: { defaultLimits: { maxSpeed: SPEED } },
    // A short stall watch and quick load reports keep the test short.
    scheduler: { tickMs: 100, unitStallMs: 2_000 },
    load: { reportIntervalMs: 300, maxReportAgeMs: 1_500 },
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-executor-lost-');
    cluster = new ProcessCluster(dir.path, { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 1 }, names);
    await startWithAudience(cluster, audience, config);
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  it('moves its units to the live executor, completes exactly, and the returning executor sends nothing for them', async () => {
    const dataDir = join(dir.path, 'data');
    const binary = { 'content-type': 'application/octet-stream' };
    await api(cluster, '/api/v1/blacklists/global', { method: 'PUT', headers: binary, body: encodeRecipientList(audience.blacklist) });
    const list = await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', { method: 'POST', headers: binary, body: encodeRecipientList(audience.list) });
    const created = await api<Task>(cluster, '/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'executor lost' }, speed: SPEED }),
    });
    const deliveryFiles = cluster.ids('executor').map((id) => join(dataDir, 'deliveries', id, `task-${created.id}.deliveries`));
    await waitFor(async () => {
      const sizes = await Promise.all(deliveryFiles.map((f) => stat(f).then((s) => s.size, () => 0)));
      return sizes.reduce((a, b) => a + b, 0) >= DELIVERED_AT_KILL * 8;
    }, { timeoutMs: 60_000, intervalMs: 5, message: `the broadcast did not start delivering\n${cluster.logs()}` });

    // The executor holding the most unfinished units goes, for good.
    const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL!, database: names.database });
    const [rows] = await pool.query(`SELECT executor_id AS executorId, COUNT(*) AS n FROM execution_units WHERE task_id = ? AND state <> 'DONE' GROUP BY executor_id ORDER BY n DESC`, [created.id]);
    const holding = rows as { executorId: string; n: number }[];
    expect(holding.length).toBeGreaterThan(0); // the kill lands mid-broadcast
    const killed = holding[0]!.executorId;
    const survivor = cluster.ids('executor').find((id) => id !== killed)!;
    await cluster.stop(cluster.processes.find((p) => p.id === killed)!, 'SIGKILL');

    let task: Task | undefined;
    await waitFor(async () => {
      task = await api<Task>(cluster, `/api/v1/tasks/${created.id}`);
      return FINAL.includes(task.state);
    }, { timeoutMs: 180_000, intervalMs: 200, message: `the broadcast did not finish without its executor (last: ${task?.state})\n${cluster.logs()}` });
    expect(task!.state).toBe('COMPLETED');
    const [units] = await pool.query('SELECT executor_id AS executorId, state FROM execution_units WHERE task_id = ?', [created.id]);
    await pool.end();
    const movedUnits = (units as { executorId: string; state: string }[]).filter((u) => u.executorId === survivor).length;
    expect(movedUnits).toBeGreaterThan(0);
    const scheduler = cluster.processes.find((p) => p.tier === 'scheduler')!;
    const moveLogged = (line: string) => line.includes('unit moved off an executor that stopped reporting') && line.includes(`"from":"${killed}"`) && line.includes(`"to":"${survivor}"`);
    expect(scheduler.output.split('\n').some(moveLogged)).toBe(true);

    // Started again: the batches still queued for it reach it, and are dropped unreported.
    const before = await leftBy(dataDir, killed, created.id);
    const returned = await cluster.start('executor', killed);
    await waitFor(() => returned.output.includes('batch of a unit moved to another executor dropped'), { timeoutMs: 30_000, message: `the returning executor never saw a batch of a moved unit\n${returned.output}` });
    const quiet = async () => ((await (await fetch(`http://${cluster.managementAddress(killed)}/status`, { headers: cluster.managementHeaders() })).json()) as { idleMs: number }).idleMs >= 2_000;
    await waitFor(quiet, { timeoutMs: 30_000, intervalMs: 200, message: 'the returning executor\'s inbox never went quiet' });
    await cluster.stop(returned);
    const after = await leftBy(dataDir, killed, created.id);
    expect(after).toEqual(before);

    // Exact: everyone online delivered, everyone offline queued; a repeat only from the batch in hand at the kill.
    const { online, offline } = expectedOutcome(audience);
    const { delivered, queued } = await actualOutcome(cluster, dataDir, created.id);
    const distinctDelivered = uniqueSorted(delivered.slice());
    const distinctQueued = uniqueSorted(queued.slice());
    expect(distinctDelivered).toEqual(online);
    expect(distinctQueued).toEqual(offline);
    const repeats = delivered.length - distinctDelivered.length + (queued.length - distinctQueued.length);
    expect(repeats).toBeLessThanOrEqual(BATCH);
    process.stdout.write(`executor lost: ${killed} killed, ${movedUnits} units finished on ${survivor}; ${repeats} repeats; ${after.delivered} delivered and ${after.queued} queued by ${killed} before and after its return\n`);

    // Its offline lists are still its own to deliver: a user it queued who logs in gets the message from it.
    const queuedThere = await (async () => {
      const store = await LevelOfflineStore.open(join(dataDir, `offline-${killed}`), { rangeBits: 12 });
      try {
        for await (const part of store.scanTask(created.id)) if (part.length > 0) return part[0]!;
      } finally {
        await store.close();
      }
      return undefined;
    })();
    expect(queuedThere).toBeDefined();
    if (queuedThere !== undefined) {
      const again = await cluster.start('executor', killed);
      await cluster.publishOnline(Uint32Array.of(queuedThere));
      await waitFor(async () => {
        const sink = await readDeliveryFile(join(dataDir, 'deliveries', killed), created.id);
        return sink.uins.some((uin, i) => uin === queuedThere && sink.atLogin[i] === 1);
      }, { timeoutMs: 30_000, intervalMs: 200, message: `the returning executor did not deliver its offline list at login\n${again.output}` });
      await cluster.stop(again);
    }
  });
});
