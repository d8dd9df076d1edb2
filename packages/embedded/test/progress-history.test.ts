import { join } from 'node:path';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, GatedGateway, listBytes, upload, waitForEnd } from './helpers';

/**
 * Progress history end to end (issue 19, item 4): the curve the owning
 * scheduler records survives a restart of the whole cluster (the new owner
 * reads it back and goes on), and a task queued behind another says why.
 * A gated gateway holds each broadcast at a known point, so nothing races.
 */
const uinSpaceBits = 20;
const options = (dataDir: string) => ({
  dataDir,
  uinSpaceBits,
  http: { port: 0 },
  auth: TEST_AUTH_OPTIONS,
  tasks: TEST_TASK_OPTIONS,
  scheduler: { slots: 1 },
  dispatcher: { batchSize: 500, unitSize: 5_000 },
  executor: { ids: ['executor-1'] },
  transport: { highWaterMark: 4 },
});

interface Progress {
  state: string;
  recorded: boolean;
  confirmed: number;
  total: number | null;
  samples: { at: number; confirmed: number }[];
  waiting: { message: string; heldBy: number[] } | null;
}

describe('progress history', () => {
  let dir: TempDir;
  let gateway: GatedGateway;
  let cluster: EmbeddedCluster;
  const online = new TypedArrayBitmap(2 ** uinSpaceBits);
  const uins = Array.from({ length: 20_000 }, (_, i) => i * 7 + 3);

  beforeEach(async () => {
    dir = await makeTempDir('herald-progress-');
    gateway = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    for (let i = 0; i < uins.length; i += 2) online.setOnline(uins[i]!, true);
    cluster = await startEmbeddedCluster(options(dir.path), { gateway, online });
  });

  afterEach(async () => {
    gateway.release();
    await cluster.stop();
    await dir.remove();
  });

  async function createTask(): Promise<Task> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: `c${Math.random()}` },
    });
    expect(created.status).toBe(201);
    return created.body;
  }
  const progressOf = async (id: number) => (await call<Progress>(cluster, 'GET', `/api/v1/tasks/${id}/progress`)).body;

  it('keeps the curve across a restart: the new owner goes on from the first sample', async () => {
    gateway.hold();
    const task = await createTask();
    await waitFor(() => gateway.waiting > 0, { timeoutMs: 30_000, message: 'no batch reached the gateway' });
    await waitFor(async () => (await progressOf(task.id)).recorded, {
      timeoutMs: 30_000,
      message: 'the scheduler wrote no first sample',
    });
    const first = (await progressOf(task.id)).samples[0]!;
    const stopping = cluster.stop();
    gateway.release();
    await stopping;

    gateway = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    cluster = await startEmbeddedCluster(options(dir.path), { gateway, online });
    const done = await waitForEnd(cluster, task.id);
    expect(done.state).toBe('COMPLETED');
    const after = await progressOf(task.id);
    expect(after.samples[0]).toEqual(first);
    expect(after.samples.length).toBeGreaterThanOrEqual(2);
    expect(after.samples.at(-1)!.confirmed).toBe(uins.length);
    expect(after).toMatchObject({ state: 'COMPLETED', confirmed: uins.length, total: uins.length, waiting: null });
    for (let i = 1; i < after.samples.length; i++) {
      expect(after.samples[i]!.at).toBeGreaterThanOrEqual(after.samples[i - 1]!.at);
      expect(after.samples[i]!.confirmed).toBeGreaterThanOrEqual(after.samples[i - 1]!.confirmed);
    }
  });

  it('says why a task queued behind another waits, and stops saying it once it runs', async () => {
    gateway.hold();
    const holder = await createTask();
    await waitFor(() => gateway.waiting > 0, { timeoutMs: 30_000, message: 'no batch reached the gateway' });
    const queued = await createTask();
    await waitFor(async () => (await progressOf(queued.id)).waiting !== null, {
      timeoutMs: 30_000,
      message: 'the queued task never said why it waits',
    });
    const waiting = (await progressOf(queued.id)).waiting!;
    expect(waiting.message).toBe(`waiting for a sender slot: 1 of 1 in use by task ${holder.id}`);
    expect(waiting.heldBy).toEqual([holder.id]);

    gateway.release();
    expect((await waitForEnd(cluster, queued.id)).state).toBe('COMPLETED');
    expect((await progressOf(queued.id)).waiting).toBeNull();
  });
});
