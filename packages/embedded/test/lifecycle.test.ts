import { join } from 'node:path';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import {
  call,
  expectedSplit,
  GatedGateway,
  listBytes,
  offlineUins,
  sinkUins,
  upload,
  uniqueSorted,
  waitForEnd,
  waitForState,
} from './helpers';

/**
 * Pause/resume/cancel and restart recovery, each stopped at a known point: a
 * gated delivery gateway holds the broadcast mid-way, so nothing races.
 */
const uinSpaceBits = 22;
const options = (dataDir: string) => ({
  dataDir,
  uinSpaceBits,
  http: { port: 0 },
  auth: TEST_AUTH_OPTIONS,
  tasks: TEST_TASK_OPTIONS,
  dispatcher: { batchSize: 500, unitSize: 10_000 },
  executor: { ids: ['executor-1', 'executor-2'] },
  transport: { highWaterMark: 4 },
  offline: { rangeBits: 12 },
});
/** Batches that can be delivered but not yet checkpointed when a cluster stops: one in each executor plus its inbox. */
const inFlightBound = 2 * (4 + 1) * 500;

describe('task lifecycle through the API', () => {
  let dir: TempDir;
  let gateway: GatedGateway;
  let online: TypedArrayBitmap;
  let cluster: EmbeddedCluster;
  const audience = syntheticAudience({
    recipients: 60_000,
    onlineFraction: 0.3,
    uinLimit: 2 ** uinSpaceBits,
    seed: 11,
  });
  const expected = expectedSplit(audience);

  beforeEach(async () => {
    dir = await makeTempDir('herald-lifecycle-');
    gateway = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    online = new TypedArrayBitmap(2 ** uinSpaceBits);
    for (const uin of audience.online) online.setOnline(uin, true);
    cluster = await startEmbeddedCluster(options(dir.path), { gateway, online });
    await upload(cluster, '/api/v1/blacklists/global', listBytes(audience.blacklist));
  });

  afterEach(async () => {
    gateway.release();
    await cluster.stop();
    await dir.remove();
  });

  async function createTask(extra: Record<string, unknown> = {}): Promise<Task> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: `c${Math.random()}` },
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  async function expectExactOutcome(taskId: number, maxDuplicates: number): Promise<void> {
    const task = await waitForEnd(cluster, taskId);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(expected.online.length);
    expect(task.report.offline).toBe(expected.offline.length);
    const sink = await sinkUins(cluster, taskId);
    expect(uniqueSorted(sink.slice())).toEqual(expected.online);
    expect(sink.length - expected.online.length).toBeLessThanOrEqual(maxDuplicates);
    expect(await offlineUins(cluster, taskId)).toEqual(expected.offline);
  }

  it('pauses a sending task at its checkpoints and resumes it to an exact finish', async () => {
    gateway.hold();
    const task = await createTask();
    await waitFor(() => gateway.waiting > 0, { timeoutMs: 30_000, message: 'no batch reached the gateway' });
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/pause`)).status).toBe(202);
    await waitForState(cluster, task.id, ['PAUSED']);
    gateway.release();
    // Every unit stops at a checkpoint; the batches in flight still land and are checkpointed.
    await waitFor(
      async () =>
        (await cluster.store.listUnits(task.id)).every(
          (u: ExecutionUnit) => u.state === 'CHECKPOINTED' || u.state === 'PENDING' || u.state === 'DONE',
        ),
      {
        timeoutMs: 30_000,
        message: 'units did not stop',
      },
    );
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/resume`)).status).toBe(202);
    await expectExactOutcome(task.id, inFlightBound);
  });

  it('holds a scheduled task paused, puts it back on schedule on resume, and cancels it', async () => {
    const task = await createTask({ sendAt: new Date(Date.now() + 3_600_000).toISOString() });
    await waitForState(cluster, task.id, ['SCHEDULED']);
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/pause`)).status).toBe(202);
    await waitForState(cluster, task.id, ['PAUSED']);
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/resume`)).status).toBe(202);
    await waitForState(cluster, task.id, ['SCHEDULED']);
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/cancel`)).status).toBe(202);
    const cancelled = await waitForState(cluster, task.id, ['CANCELLED']);
    expect(cancelled.report.delivered).toBe(0);
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/resume`)).body).toMatchObject({
      error: { code: 'ILLEGAL_TRANSITION' },
    });
  });

  it('cancels a sending task: no unit runs on, nothing more is delivered', async () => {
    gateway.hold();
    const task = await createTask();
    await waitFor(() => gateway.waiting > 0, { timeoutMs: 30_000, message: 'no batch reached the gateway' });
    expect((await call(cluster, 'POST', `/api/v1/tasks/${task.id}/cancel`)).status).toBe(202);
    await waitForState(cluster, task.id, ['CANCELLED']);
    gateway.release();
    await waitFor(
      async () => (await cluster.store.listUnits(task.id)).every((u) => u.state === 'CANCELLED' || u.state === 'DONE'),
      { timeoutMs: 30_000, message: 'units not cancelled' },
    );
    const delivered = (await sinkUins(cluster, task.id)).length;
    expect(delivered).toBeLessThan(expected.online.length);
  });

  it('resumes a broadcast after a restart from its checkpoints, losing no recipient', async () => {
    gateway.hold();
    const task = await createTask();
    await waitFor(() => gateway.waiting > 0, { timeoutMs: 30_000, message: 'no batch reached the gateway' });
    const stopping = cluster.stop();
    gateway.release();
    await stopping;

    gateway = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    cluster = await startEmbeddedCluster(options(dir.path), { gateway, online });
    await expectExactOutcome(task.id, inFlightBound);
  });
});
