import type { Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  WebhookReceiver,
  type TempDir,
  type WebhookAnswer,
} from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * A channel hold longer than the stall period (docs/delivery.md, "On the
 * task"): the receiver answers 429 with a Retry-After of two and a half stall periods.
 * The executor holds the batch in hand and repeats the hold's report, so the
 * scheduler's stall watch runs nothing again: no unit re-run, no batch
 * accepted twice, the broadcast exact once the hold ends.
 */
const STALL_MS = 2000;

describe('a channel hold longer than scheduler.unitStallMs', () => {
  let dir: TempDir;
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 20;
  const audience = syntheticAudience({ recipients: 8_000, onlineFraction: 0.5, uinLimit: 2 ** uinSpaceBits, seed: 9 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-hold-stall-');
    receiver = await WebhookReceiver.start();
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      scheduler: { tickMs: 100, unitStallMs: STALL_MS },
      dispatcher: { batchSize: 500, unitSize: 2000 },
      delivery: {
        kind: 'webhook',
        webhook: { url: receiver.url, pacing: { maxHoldMs: 10_000, minRate: 2000 } },
      },
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  async function stalledUnits(): Promise<number> {
    const { body } = await cluster.meter.exposition();
    const line = body.split('\n').find((l) => l.startsWith('herald_scheduler_stalled_units_total'));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  it('runs no unit again while the executor repeats the hold, and completes exact', async () => {
    let throttled = false;
    receiver.answerBy((): WebhookAnswer => {
      if (throttled) return { status: 200 };
      throttled = true;
      return { status: 429, headers: { 'retry-after': String((2.5 * STALL_MS) / 1000) } };
    });
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'held' },
    });
    expect(created.status).toBe(201);
    const task = await waitForEnd(cluster, created.body.id);
    expect([task.state, task.report.delivered]).toEqual(['COMPLETED', online.length]);
    expect(throttled).toBe(true);
    expect(receiver.requests.length).toBeGreaterThan(receiver.accepted.length); // the 429 came
    expect(await stalledUnits()).toBe(0);
    const accepted = receiver.accepted.flatMap((r) => (r.body as WebhookBatch).uins).sort((a, b) => a - b);
    expect(accepted).toEqual([...online]);
  });
});
