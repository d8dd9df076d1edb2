import type { RecipientFate } from '@herald/core/fate';
import type { Delivery, DeliveryGateway, DeliveryResult } from '@herald/core/ports';
import { canaryFraction, inCanarySample } from '@herald/core/rollout';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd, waitForState } from './helpers';

/** Records every uin each task sent to, and rejects for good the uins `rejects` names (dead letters). */
class RecordingGateway implements DeliveryGateway {
  readonly seen = new Map<number, Set<number>>();
  rejects: (uin: number) => boolean = () => false;

  deliver(delivery: Delivery): Promise<DeliveryResult> {
    const seen = this.seen.get(delivery.taskId) ?? new Set<number>();
    this.seen.set(delivery.taskId, seen);
    const rejected = [];
    for (const uin of delivery.uins) {
      seen.add(uin);
      if (this.rejects(uin)) rejected.push({ uin, reason: 'unregistered' });
    }
    return Promise.resolve({ rejected });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Canary tasks end to end (docs/rollouts.md, "Canary"): the sample goes
 * first, the task holds, and the rest goes only if the channel stayed under
 * the thresholds; otherwise the task pauses itself with the reason and never
 * touches the rest. The operator can promote by hand. The cluster's clock
 * runs `shift` ahead of the wall clock: moving it ends a hold.
 */
describe('canary tasks', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let shift = 0;
  const gateway = new RecordingGateway();
  const AUDIENCE = Array.from({ length: 20_000 }, (_, i) => 10 + i * 3);
  let sent = 0;

  const online = new TypedArrayBitmap(2 ** 17);
  for (const uin of AUDIENCE) online.setOnline(uin, true);
  const start = () =>
    startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 17,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        dispatcher: { batchSize: 256, unitSize: 2048 },
      },
      { gateway, online, clock: { now: () => Date.now() + shift } },
    );

  beforeAll(async () => {
    dir = await makeTempDir('herald-canary-');
    cluster = await start();
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function createCanary(holdSeconds: number, rejectedRatio = 0.05, minClickThrough?: number): Promise<Task> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(AUDIENCE));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: `canary ${++sent}` },
      canary: { sample: '5%', holdSeconds, thresholds: { rejectedRatio, failedRatio: 0.05, minClickThrough } },
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  /** The uins of the task's sample, by the assignment function. */
  function sampleOf(task: Task): number[] {
    const fraction = canaryFraction('5%', AUDIENCE.length);
    return AUDIENCE.filter((uin) => inCanarySample(uin, task.rollout!.seed, fraction));
  }

  const seenBy = (task: Task) => [...(gateway.seen.get(task.id) ?? [])].sort((a, b) => a - b);
  const getTask = async (task: Task) => (await call<Task>(cluster, 'GET', `/api/v1/tasks/${task.id}`)).body;

  it('pauses itself after a sample the channel rejects 30% of, never touching the rest; a promote sends it', async () => {
    gateway.rejects = (uin) => uin % 10 < 3;
    const created = await createCanary(0);
    const paused = await waitForState(cluster, created.id, ['PAUSED']);
    const sample = sampleOf(created);
    expect(sample.length).toBeGreaterThan(800);
    expect(paused.error?.code).toBe('CANARY_FAILED');
    expect(paused.error?.message).toMatch(/rejected .*% of the canary's \d+ recipients/);
    expect(paused.report.canary).toMatchObject({ sample: sample.length, state: 'failed' });
    expect(paused.report.canary!.rejectedRatio).toBeGreaterThan(0.2);
    expect(seenBy(created)).toEqual(sample);

    // The rest's recipients were never sent to, and the per-recipient answer finds both parts of the list.
    const rest = AUDIENCE.find((uin) => !sample.includes(uin))!;
    const restFate = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${created.id}/recipients/${rest}`);
    expect(restFate.body).toMatchObject({ fate: 'not_reached' });
    // The sample's recipients the channel took are delivered, the ones it rejected say so (positions: sample order).
    const fateAt = async (i: number) =>
      (await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${created.id}/recipients/${sample[i]}`)).body;
    const accepted = sample.findIndex((uin) => uin % 10 >= 3);
    const refused = sample.findIndex((uin) => uin % 10 < 3);
    expect(await fateAt(accepted)).toMatchObject({ fate: 'delivered_online', position: accepted });
    expect(await fateAt(refused)).toMatchObject({ fate: 'rejected', reason: 'unregistered', position: refused });

    gateway.rejects = () => false;
    const promote = await call(cluster, 'POST', `/api/v1/tasks/${created.id}/promote`);
    expect(promote.status).toBe(202);
    const done = await waitForEnd(cluster, created.id);
    expect(done.state).toBe('COMPLETED');
    expect(done.report.canary?.state).toBe('promoted');
    expect(seenBy(created)).toEqual(AUDIENCE);
  });

  it('holds a healthy canary after its sample and sends the rest once the hold ends', async () => {
    gateway.rejects = () => false;
    const created = await createCanary(3600);
    const sample = sampleOf(created);
    await waitFor(async () => (await getTask(created)).report.delivered === sample.length, {
      message: 'the sample delivered',
    });
    const holding = await getTask(created);
    expect(holding).toMatchObject({ state: 'SENDING', report: { canary: { state: 'sampling' } } });
    expect(seenBy(created)).toEqual(sample);

    shift += 3_600_000;
    const done = await waitForEnd(cluster, created.id);
    expect(done).toMatchObject({ state: 'COMPLETED', report: { delivered: AUDIENCE.length } });
    expect(done.report.canary).toMatchObject({ state: 'passed', rejectedRatio: 0, failedRatio: 0 });
    expect(seenBy(created)).toEqual(AUDIENCE);

    // The delivery report walks the two runs of the list merged: every uin once, ascending, each delivered at its position.
    const response = await fetch(`${cluster.url}/api/v1/tasks/${created.id}/report`, {
      headers: { ...authHeaders(), accept: 'application/x-ndjson' },
    });
    const rows = (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecipientFate);
    expect(rows.map((r) => r.uin)).toEqual(AUDIENCE);
    expect(rows.every((r) => r.fate === 'delivered_online')).toBe(true);
    const inSample = new Set(sample);
    expect(rows.filter((r) => inSample.has(r.uin)).every((r) => r.position! < sample.length)).toBe(true);
    expect(new Set(rows.map((r) => r.position)).size).toBe(AUDIENCE.length);
  });

  it('judges click-through an app reported by the end of the hold: below the minimum it pauses, above it the rest goes', async () => {
    gateway.rejects = () => false;
    const engage = (task: Task, clicks: number) =>
      call(cluster, 'POST', `/api/v1/tasks/${task.id}/engagement`, { clicks });
    const low = await createCanary(3600, 0.05, 0.02);
    const high = await createCanary(3600, 0.05, 0.02);
    for (const task of [low, high])
      await waitFor(async () => (await getTask(task)).report.delivered === sampleOf(task).length, {
        message: 'the sample delivered',
      });
    // 1% of the low sample clicked, 10% of the high one; a smaller total reported later changes nothing.
    expect((await engage(low, Math.floor(sampleOf(low).length / 100))).status).toBe(200);
    expect((await engage(high, Math.ceil(sampleOf(high).length / 10))).status).toBe(200);
    expect((await engage(high, 1)).status).toBe(200);

    shift += 3_600_000;
    const paused = await waitForState(cluster, low.id, ['PAUSED']);
    expect(paused.error?.code).toBe('CANARY_FAILED');
    expect(paused.error?.message).toMatch(/clicked through at .*% .*minimum 2\.00%/);
    expect(paused.report.canary).toMatchObject({ state: 'failed' });
    expect(paused.report.canary!.clickThrough).toBeCloseTo(
      Math.floor(sampleOf(low).length / 100) / sampleOf(low).length,
      6,
    );
    expect(seenBy(low)).toEqual(sampleOf(low));

    const done = await waitForEnd(cluster, high.id);
    expect(done).toMatchObject({ state: 'COMPLETED', report: { canary: { state: 'passed' } } });
    expect(done.report.engagement?.clicks).toBe(Math.ceil(sampleOf(high).length / 10));
    expect(seenBy(high)).toEqual(AUDIENCE);
  });

  it('sends the rest at once when promoted by hand during the hold; refuses to promote anything else', async () => {
    gateway.rejects = () => false;
    const created = await createCanary(3600);
    const sample = sampleOf(created);
    await waitFor(async () => (await getTask(created)).report.delivered === sample.length, {
      message: 'the sample delivered',
    });
    expect((await call(cluster, 'POST', `/api/v1/tasks/${created.id}/promote`)).status).toBe(202);
    const done = await waitForEnd(cluster, created.id);
    expect(done).toMatchObject({ state: 'COMPLETED', report: { canary: { state: 'promoted' } } });
    expect(seenBy(created)).toEqual(AUDIENCE);

    const again = await call<{ error: { code: string } }>(cluster, 'POST', `/api/v1/tasks/${created.id}/promote`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ILLEGAL_TRANSITION');
  });

  it('keeps holding across a restart: the new owner rebuilds the hold from the store, then sends the rest', async () => {
    gateway.rejects = () => false;
    const created = await createCanary(3600);
    const sample = sampleOf(created);
    await waitFor(async () => (await getTask(created)).report.delivered === sample.length, {
      message: 'the sample delivered',
    });
    const epoch = (await getTask(created)).epoch;
    await cluster.stop();
    cluster = await start();
    // Recovered (claimed under a new epoch) and sending again, with the rest still held: nothing past the sample goes out.
    await waitFor(async () => (await getTask(created)).epoch > epoch && (await getTask(created)).state === 'SENDING', {
      message: 'the task recovered',
    });
    expect((await getTask(created)).report.canary?.state).toBe('sampling');
    expect(seenBy(created)).toEqual(sample);
    shift += 3_600_000;
    const done = await waitForEnd(cluster, created.id);
    expect(done).toMatchObject({ state: 'COMPLETED', report: { canary: { state: 'passed' } } });
    expect(seenBy(created)).toEqual(AUDIENCE);
  });

  it('refuses a bad canary naming the field, and creates nothing', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3]));
    const before = (await cluster.store.listTasks({ accountId: 'acme' })).tasks.length;
    const thresholds = { rejectedRatio: 0.1, failedRatio: 0.1 };
    for (const [canary, field] of [
      [{ sample: '0%', holdSeconds: 1, thresholds }, 'canary.sample'],
      [{ sample: 10, holdSeconds: -1, thresholds }, 'canary.holdSeconds'],
      [{ sample: 10, holdSeconds: 1, thresholds: { ...thresholds, failedRatio: 2 } }, 'canary.thresholds.failedRatio'],
      [
        { sample: 10, holdSeconds: 1, thresholds: { ...thresholds, minClickThrough: 1.5 } },
        'canary.thresholds.minClickThrough',
      ],
    ] as const) {
      const answer = await call<{ error: { code: string; details: { field: string } } }>(
        cluster,
        'POST',
        '/api/v1/tasks',
        {
          accountId: 'acme',
          listId: list.body.id,
          content: { body: 'x' },
          canary,
        },
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    }
    expect((await cluster.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(before);
  });

  it('refuses a canary with local-time delivery or quiet hours naming canary, and creates nothing', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3]));
    const before = (await cluster.store.listTasks({ accountId: 'acme' })).tasks.length;
    const canary = { sample: 10, holdSeconds: 1, thresholds: { rejectedRatio: 0.1, failedRatio: 0.1 } };
    for (const local of [{ deliverAt: { localTime: '09:00' } }, { quietHours: '22:00-08:00' }]) {
      const answer = await call<{ error: { code: string; details: { field: string } } }>(
        cluster,
        'POST',
        '/api/v1/tasks',
        { accountId: 'acme', listId: list.body.id, content: { body: 'x' }, canary, ...local },
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'canary' } });
    }
    expect((await cluster.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(before);
  });
});
