import { join } from 'node:path';
import { TypedArrayBitmap, type Delivery, type DeliveryGateway, type Task } from '@herald/core';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { call, listBytes, sinkUins, upload, waitForEnd } from './helpers';

/**
 * Dynamic scheduling through the real tiers of an embedded cluster: a
 * real-time task preempts a sending normal task at its checkpoints, which
 * resumes later with every recipient delivered exactly once; and a thousand
 * small normal tasks with real-time ones among them all finish on a few slots.
 */
const uinSpaceBits = 20;

/**
 * A gateway that lets the first `passFirst` deliveries matching `match` through,
 * then holds every further matching delivery (in flight at its executor) until
 * `release()`. Other deliveries always pass.
 */
class HoldAfter implements DeliveryGateway {
  passed = 0;
  waiting = 0;
  private open: (() => void) | undefined;
  private gate: Promise<void> | undefined = new Promise<void>((resolve) => (this.open = resolve)); // after `open`: fields initialise in order

  constructor(
    private readonly inner: DeliveryGateway,
    private readonly match: (delivery: Delivery) => boolean,
    private readonly passFirst: number,
  ) {}

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  async deliver(delivery: Delivery): Promise<void> {
    if (this.match(delivery) && this.gate !== undefined) {
      if (this.passed >= this.passFirst) {
        this.waiting++;
        await this.gate;
        this.waiting--;
      } else this.passed++;
    }
    await this.inner.deliver(delivery);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const range = (from: number, count: number) => Uint32Array.from({ length: count }, (_, i) => from + i);

async function createTask(cluster: EmbeddedCluster, listId: string, body: string, priority: 'normal' | 'realtime'): Promise<Task> {
  const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', { accountId: 'acme', listId, content: { body }, priority });
  expect(created.status).toBe(201);
  return created.body;
}

describe('preemption, end to end', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster | undefined;
  let gateway: HoldAfter | undefined;

  beforeEach(async () => {
    dir = await makeTempDir('herald-preemption-');
  });

  afterEach(async () => {
    gateway?.release();
    await cluster?.stop();
    cluster = undefined;
    gateway = undefined;
    await dir.remove();
  });

  it('stops a sending normal task at its checkpoints for a real-time task, then resumes it: every recipient once', async () => {
    const normalUins = range(0, 20_000);
    const urgentUins = range(500_000, 1_000);
    const batchSize = 500;
    // The normal task's first 6 batches are delivered; the next ones wait at the gateway (in flight).
    gateway = new HoldAfter(new FileDeliverySink(join(dir.path, 'deliveries')), (d) => d.uins[0]! < 500_000, 6);
    const online = new TypedArrayBitmap(2 ** uinSpaceBits);
    for (const uin of [...normalUins, ...urgentUins]) online.setOnline(uin, true);
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
        http: { port: 0 },
        scheduler: { slots: 1 },
        dispatcher: { batchSize, unitSize: 5_000 },
        executor: { ids: ['executor-1', 'executor-2'] },
        transport: { highWaterMark: 4 },
        offline: { rangeBits: 12 },
      },
      { gateway, online },
    );
    const normalList = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(normalUins));
    const urgentList = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(urgentUins));

    const normal = await createTask(cluster, normalList.body.id, 'the long one', 'normal');
    const checkpointed = async () => (await cluster!.store.listUnits(normal.id)).reduce((n, u) => n + u.checkpoint - u.start, 0);
    await waitFor(async () => gateway!.waiting > 0 && (await checkpointed()) >= 6 * batchSize, { timeoutMs: 30_000, message: 'the normal task never got 6 batches checkpointed and one held' });
    expect((await cluster.store.getTask(normal.id))!.state).toBe('SENDING');

    const urgent = await createTask(cluster, urgentList.body.id, 'breaking news', 'realtime');
    // The counter moves once the halt is over: task PREEMPTED and its units stopped.
    const preemptions = async () => /^herald_scheduler_preemptions_total (\d+)$/m.exec((await cluster!.meter.exposition()).body)?.[1];
    await waitFor(async () => (await preemptions()) === '1', { timeoutMs: 30_000, message: 'one preemption' });
    expect((await cluster.store.getTask(normal.id))!.state).toBe('PREEMPTED');
    // Stopped at its checkpoints: no unit left running, the confirmed batches kept.
    const stopped = await cluster.store.listUnits(normal.id);
    expect(stopped.every((u) => u.state === 'CHECKPOINTED' || u.state === 'PENDING' || u.state === 'DONE')).toBe(true);
    expect(stopped.reduce((n, u) => n + u.checkpoint - u.start, 0)).toBeGreaterThanOrEqual(6 * batchSize);

    gateway.release();
    expect((await waitForEnd(cluster, urgent.id, 30_000)).state).toBe('COMPLETED');
    const done = await waitForEnd(cluster, normal.id, 30_000);
    expect(done.state).toBe('COMPLETED');
    expect(done.report.delivered).toBe(normalUins.length);

    // The file sink: every recipient exactly once (sorted with repeats kept, so a duplicate or a gap shows).
    expect(await sinkUins(cluster, normal.id)).toEqual(normalUins);
    expect(await sinkUins(cluster, urgent.id)).toEqual(urgentUins);

    const path = (await cluster.store.readOutbox(0, 1_000)).filter((e) => e.taskId === normal.id).map((e) => e.to);
    expect(path.slice(path.indexOf('PREEMPTED'))).toEqual(['PREEMPTED', 'SENDING', 'COMPLETED']);
    expect(path.filter((s) => s === 'PREPROCESSING')).toHaveLength(1);
    expect(await preemptions()).toBe('1');
  });

  // About 20 s on a quiet 2-core machine; the deadlines leave room for one shared with other work.
  it('finishes 1,000 small normal tasks on 4 slots with real-time tasks arriving meanwhile (no starvation)', async () => {
    const uins = range(1_000, 20);
    const online = new TypedArrayBitmap(2 ** uinSpaceBits);
    for (const uin of uins) online.setOnline(uin, true);
    cluster = await startEmbeddedCluster(
      { dataDir: dir.path, uinSpaceBits, http: { port: 0 }, scheduler: { slots: 4 }, offline: { rangeBits: 12 } },
      { online },
    );
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));

    const normals: number[] = [];
    const urgents: number[] = [];
    const concurrency = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < 1_000; i = next++) {
          normals.push((await createTask(cluster!, list.body.id, `normal ${i}`, 'normal')).id);
          if (i % 100 === 50) urgents.push((await createTask(cluster!, list.body.id, `urgent ${i}`, 'realtime')).id);
        }
      }),
    );
    expect(normals).toHaveLength(1_000);
    expect(urgents).toHaveLength(10);

    const unfinished = new Set([...normals, ...urgents]);
    const completedAll = async () => {
      for (const id of [...unfinished]) if ((await cluster!.store.getTask(id))?.state === 'COMPLETED') unfinished.delete(id);
      return unfinished.size === 0;
    };
    await waitFor(completedAll, { timeoutMs: 80_000, intervalMs: 250, message: 'all 1,010 tasks COMPLETED' }).catch((error: Error) => {
      throw new Error(`${error.message}; still unfinished: ${unfinished.size} (e.g. ${[...unfinished].slice(0, 5).join(', ')})`);
    });
    for (const id of [...normals, ...urgents]) expect((await cluster.store.getTask(id))!.report.delivered).toBe(uins.length);
    for (const id of urgents) expect(await sinkUins(cluster, id)).toEqual(uins);
  }, 100_000);
});
