import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { uniqueSorted } from '@herald/core/uins';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { CONFIRMATIONS_IN_FLIGHT, readDeliveryFile } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import { authHeaders, makeTempDir, ProcessCluster, waitFor, type ProcessHandle, type TempDir } from '@herald/testing';
import { actualOutcome, expectedOutcome } from './outcome';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * An executor lost for good (docs/operations.md, "An executor lost"), with
 * real processes. Its units stall (no progress for scheduler.unitStallMs);
 * the dispatcher, which hears no load report from it any more, proposes the
 * live executor; the scheduler moves the units there, and they run from their
 * checkpoints. The broadcast completes, every recipient reached once but for
 * the batch the killed executor had in hand. Started again afterwards, the
 * killed executor drops the batches ZeroMQ had queued for it (the store names
 * another executor for their units): it delivers and queues nothing more of
 * the task, and still delivers its offline lists at logins.
 */
jest.setTimeout(300_000);

const BATCH = 1000;
const UNIT = 25_000;
/** Paced so the kill lands mid-broadcast on any machine: ~5 s for the ~294,000 kept recipients. */
const SPEED = 60_000;
/** Delivery records (8 bytes each) in the sinks when the executor is killed: ~a fifth of the online recipients. */
const DELIVERED_AT_KILL = 20_000;
const MAX_REPORT_AGE_MS = 1_500;
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

async function api<T>(cluster: ProcessCluster, path: string, init?: RequestInit): Promise<T> {
  return (await (
    await fetch(cluster.url + path, { ...init, headers: { ...init?.headers, ...authHeaders() } })
  ).json()) as T;
}

/** Everything one executor left for a task: its delivery records and its offline entries (read while it is stopped). */
async function leftBy(
  dataDir: string,
  executorId: string,
  taskId: number,
): Promise<{ delivered: number; queued: number }> {
  const sink = await readDeliveryFile(join(dataDir, 'deliveries', executorId), taskId);
  const store = await LevelOfflineStore.open(join(dataDir, `offline-${executorId}`), { rangeBits: 12 });
  let queued = 0;
  for await (const part of store.scanTask(taskId)) queued += part.length;
  await store.close();
  return { delivered: sink.uins.length, queued };
}

describe('an executor lost for good', () => {
  let dir: TempDir;
  let dataDir: string;
  let cluster: ProcessCluster;
  let listId: string;
  const names = uniqueNames('execlost');
  const audience = syntheticAudience({ recipients: 300_000, onlineFraction: 0.3, uinLimit: 2 ** 24, seed: 29 });
  const config = {
    dispatcher: { batchSize: BATCH, unitSize: UNIT },
    accounts: { defaultLimits: { maxSpeed: SPEED } },
    // A short stall watch and quick load reports keep the test short.
    scheduler: { tickMs: 100, unitStallMs: 2_000 },
    load: { reportIntervalMs: 300, maxReportAgeMs: MAX_REPORT_AGE_MS },
    // Small queues: what a dispatcher holds for a dead executor is bounded by this (plus a batch per stream).
    transport: { highWaterMark: 8 },
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-executor-lost-');
    dataDir = join(dir.path, 'data');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 1 },
      names,
    );
    await startWithAudience(cluster, audience, config);
    const binary = { 'content-type': 'application/octet-stream' };
    await api(cluster, '/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    listId = (
      await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
        method: 'POST',
        headers: binary,
        body: encodeRecipientList(audience.list),
      })
    ).id;
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  const create = (body: string, speed?: number) =>
    api<Task>(cluster, '/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId, content: { body }, ...(speed === undefined ? {} : { speed }) }),
    });

  async function finished(taskId: number): Promise<Task> {
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = await api<Task>(cluster, `/api/v1/tasks/${taskId}`);
        return FINAL.includes(task.state);
      },
      {
        timeoutMs: 180_000,
        intervalMs: 200,
        message: `the broadcast did not finish without its executor (last: ${task?.state})\n${cluster.logs()}`,
      },
    );
    return task!;
  }

  /** Each unit's executor and state, from the store. */
  async function unitsOf(taskId: number): Promise<{ unitNo: number; executorId: string; state: string }[]> {
    const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL!, database: names.database });
    try {
      const [rows] = await pool.query(
        'SELECT unit_no AS unitNo, executor_id AS executorId, state FROM execution_units WHERE task_id = ? ORDER BY unit_no',
        [taskId],
      );
      return rows as { unitNo: number; executorId: string; state: string }[];
    } finally {
      await pool.end();
    }
  }

  const running = (id: string) =>
    cluster.processes.find((p) => p.id === id && p.child.exitCode === null && p.child.signalCode === null);
  const dispatcherHosts = async () =>
    (await (
      await fetch(`http://${cluster.managementAddress('dispatcher-1')}/status`, {
        headers: cluster.managementHeaders(),
      })
    ).json()) as { hosts: { executorId: string; ageMs: number }[]; busy: number };

  function expectMoveLogged(from: string, to: string): void {
    const scheduler = cluster.processes.find((p) => p.tier === 'scheduler')!;
    const moved = (line: string) =>
      line.includes('unit moved off an executor that stopped reporting') &&
      line.includes(`"from":"${from}"`) &&
      line.includes(`"to":"${to}"`);
    expect(scheduler.output.split('\n').some(moved)).toBe(true);
  }

  /** Starts the killed executor again, waits until its inbox is quiet, stops it: returns what it added to the task (nothing, if fenced) and its output. */
  async function comeBack(
    killed: string,
    taskId: number,
    expectDrops: boolean,
  ): Promise<{ added: { delivered: number; queued: number }; output: string }> {
    const before = await leftBy(dataDir, killed, taskId);
    const returned = await cluster.start('executor', killed);
    if (expectDrops) {
      await waitFor(() => returned.output.includes('batch of a unit moved to another executor dropped'), {
        timeoutMs: 30_000,
        message: `the returning executor never dropped a batch of a moved unit\n${returned.output}`,
      });
    }
    const quiet = async () =>
      (
        (await (
          await fetch(`http://${cluster.managementAddress(killed)}/status`, { headers: cluster.managementHeaders() })
        ).json()) as { idleMs: number }
      ).idleMs >= 2_000;
    await waitFor(quiet, {
      timeoutMs: 30_000,
      intervalMs: 200,
      message: "the returning executor's inbox never went quiet",
    });
    await cluster.stop(returned);
    const after = await leftBy(dataDir, killed, taskId);
    return {
      added: { delivered: after.delivered - before.delivered, queued: after.queued - before.queued },
      output: returned.output,
    };
  }

  /** Everyone online delivered, everyone offline queued; a repeat only from the batches in hand at the kill. Stops the executors. */
  async function expectExact(taskId: number): Promise<number> {
    const { online, offline } = expectedOutcome(audience);
    const { delivered, queued } = await actualOutcome(cluster, dataDir, taskId);
    const distinctDelivered = uniqueSorted(delivered.slice());
    const distinctQueued = uniqueSorted(queued.slice());
    expect(distinctDelivered).toEqual(online);
    expect(distinctQueued).toEqual(offline);
    const repeats = delivered.length - distinctDelivered.length + (queued.length - distinctQueued.length);
    // The batches in hand at the kill: the one being written and those waiting for their confirmation (docs/delivery.md).
    expect(repeats).toBeLessThanOrEqual((CONFIRMATIONS_IN_FLIGHT + 1) * BATCH);
    return repeats;
  }

  let firstTask = 0;
  let firstKilled = '';

  it('moves the units of an executor killed mid-broadcast to the live one, completes exactly, and the returning executor adds nothing', async () => {
    const created = await create('executor lost', SPEED);
    const deliveryFiles = cluster
      .ids('executor')
      .map((id) => join(dataDir, 'deliveries', id, `task-${created.id}.deliveries`));
    await waitFor(
      async () => {
        const sizes = await Promise.all(
          deliveryFiles.map((f) =>
            stat(f).then(
              (s) => s.size,
              () => 0,
            ),
          ),
        );
        return sizes.reduce((a, b) => a + b, 0) >= DELIVERED_AT_KILL * 8;
      },
      { timeoutMs: 60_000, intervalMs: 5, message: `the broadcast did not start delivering\n${cluster.logs()}` },
    );

    // The executor holding the most unfinished units goes, for good.
    const unfinished = (await unitsOf(created.id)).filter((u) => u.state !== 'DONE');
    const holding = new Map<string, number[]>();
    for (const u of unfinished) holding.set(u.executorId, [...(holding.get(u.executorId) ?? []), u.unitNo]);
    expect(holding.size).toBeGreaterThan(0); // the kill lands mid-broadcast
    const [killed, itsUnits] = [...holding].sort((a, b) => b[1].length - a[1].length)[0]!;
    const survivor = cluster.ids('executor').find((id) => id !== killed)!;
    await cluster.stop(running(killed)!, 'SIGKILL');

    expect((await finished(created.id)).state).toBe('COMPLETED');
    // Every unit it had not finished is DONE: moved and finished on the survivor, or finished by the reports
    // it sent just before it died (still in the scheduler's inbox at the kill). At least one moved.
    const after = (await unitsOf(created.id)).filter((u) => itsUnits.includes(u.unitNo));
    expect(after.filter((u) => u.state !== 'DONE')).toEqual([]);
    expect(after.filter((u) => u.executorId === survivor).length).toBeGreaterThan(0);
    expectMoveLogged(killed, survivor);

    // What the dispatcher still held for it (if anything: its socket buffers may have taken all) is dropped.
    const { added } = await comeBack(killed, created.id, false);
    expect(added).toEqual({ delivered: 0, queued: 0 });
    const repeats = await expectExact(created.id);
    process.stdout.write(
      `executor lost mid-broadcast: ${killed} killed, its units finished on ${survivor}; ${repeats} repeats\n`,
    );
    firstTask = created.id;
    firstKilled = killed;
  });

  it('drops, on its return, the batches a dispatcher queued for it after it died', async () => {
    for (const id of cluster.ids('executor')) if (running(id) === undefined) await cluster.start('executor', id);
    await waitFor(async () => (await dispatcherHosts()).hosts.filter((h) => h.ageMs < 1_000).length === 2, {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: 'both executors reporting',
    });
    // executor-1 dies; executor-2 freezes (SIGSTOP) until the task is planned and streaming: with no fresh
    // report the dispatcher splits the units evenly over both, and has nowhere better to send executor-1's
    // than its dead link, where they queue. Once executor-2 thaws and reports again, they move to it.
    const [killed, frozen] = ['executor-1', 'executor-2'];
    const frozenHandle: ProcessHandle = running(frozen)!;
    frozenHandle.child.kill('SIGSTOP');
    try {
      await cluster.stop(running(killed)!, 'SIGKILL');
      await waitFor(async () => (await dispatcherHosts()).hosts.every((h) => h.ageMs > MAX_REPORT_AGE_MS), {
        timeoutMs: 30_000,
        intervalMs: 100,
        message: 'the reports going stale',
      });
      const created = await create('executor lost before its units ran');
      await waitFor(
        async () =>
          (await unitsOf(created.id)).some((u) => u.executorId === killed) && (await dispatcherHosts()).busy > 0,
        { timeoutMs: 60_000, intervalMs: 50, message: `units planned on ${killed} and streaming\n${cluster.logs()}` },
      );
      frozenHandle.child.kill('SIGCONT');

      expect((await finished(created.id)).state).toBe('COMPLETED');
      expect((await unitsOf(created.id)).filter((u) => u.executorId === killed)).toEqual([]);
      expectMoveLogged(killed, frozen);

      const { added, output } = await comeBack(killed, created.id, true);
      expect(added).toEqual({ delivered: 0, queued: 0 });
      const dropped = output
        .split('\n')
        .filter((l) => l.includes('batch of a unit moved to another executor dropped')).length;
      const repeats = await expectExact(created.id);
      process.stdout.write(
        `executor lost before its units ran: batches of ${dropped} moved units dropped on its return; ${repeats} repeats\n`,
      );
    } finally {
      frozenHandle.child.kill('SIGCONT');
    }
  });

  it('still delivers, once back, the offline lists it holds when their users log in', async () => {
    expect(firstTask).toBeGreaterThan(0);
    let queuedThere: number | undefined;
    const store = await LevelOfflineStore.open(join(dataDir, `offline-${firstKilled}`), { rangeBits: 12 });
    try {
      for await (const part of store.scanTask(firstTask))
        if (part.length > 0 && queuedThere === undefined) queuedThere = part[0]!;
    } finally {
      await store.close();
    }
    expect(queuedThere).toBeDefined();
    const back = await cluster.start('executor', firstKilled);
    await cluster.publishOnline(Uint32Array.of(queuedThere!));
    await waitFor(
      async () => {
        const sink = await readDeliveryFile(join(dataDir, 'deliveries', firstKilled), firstTask);
        return sink.uins.some((uin, i) => uin === queuedThere && sink.atLogin[i] === 1);
      },
      {
        timeoutMs: 30_000,
        intervalMs: 200,
        message: `the returning executor did not deliver its offline list at login\n${back.output}`,
      },
    );
  });
});
