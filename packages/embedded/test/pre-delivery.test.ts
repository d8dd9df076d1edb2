import type { Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, WebhookReceiver, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * Pre-delivery through a webhook push channel: a task with a display time an
 * hour ahead is delivered now, and every batch the webhook receives (online
 * pushes and, later, deliveries at login) carries that display time.
 */
describe('pre-delivery over the webhook gateway', () => {
  let dir: TempDir;
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 20;
  const audience = syntheticAudience({
    recipients: 20_000,
    onlineFraction: 0.4,
    uinLimit: 2 ** uinSpaceBits,
    seed: 11,
  });
  // No blacklist is uploaded here: every distinct recipient is kept, and split by the online set.
  const onlineSet = new Set(audience.online);
  const expected = {
    online: audience.distinct.filter((uin) => onlineSet.has(uin)),
    offline: audience.distinct.filter((uin) => !onlineSet.has(uin)),
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-pre-delivery-');
    receiver = await WebhookReceiver.start();
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { batchSize: 500, unitSize: 5000 },
      delivery: { kind: 'webhook', webhook: { url: receiver.url, retryDelayMs: 10 } },
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  const batches = () => receiver.accepted.map(({ body }) => body as WebhookBatch);

  it('delivers ahead of the display time, every batch carrying it, online and at login', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const displayAt = Date.now() + 3_600_000;
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'at the top of the hour' },
      displayAt: new Date(displayAt).toISOString(),
    });
    expect(created.status).toBe(201);
    expect(created.body.displayAt).toBe(displayAt);
    const task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(expected.online.length);

    const pushed = batches().filter((b) => b.taskId === task.id);
    expect(
      pushed.every((b) => b.displayAt === displayAt && !b.atLogin && b.content.body === 'at the top of the hour'),
    ).toBe(true);
    expect(pushed.flatMap((b) => b.uins).sort((a, b) => a - b)).toEqual([...expected.online]);

    const users = expected.offline.subarray(0, 5);
    expect(await cluster.login(users)).toEqual({ delivered: 5, expired: 0, overFrequency: 0, held: 0 });
    const atLogin = batches().filter((b) => b.taskId === task.id && b.atLogin);
    expect(atLogin.flatMap((b) => b.uins).sort((a, b) => a - b)).toEqual([...users].sort((a, b) => a - b));
    expect(atLogin.every((b) => b.displayAt === displayAt)).toBe(true);
  });

  it('refuses a display time before the send time or after the task expires, naming the field', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3]));
    const body = (displayAt: string, extra: object = {}) => ({
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'x' },
      displayAt,
      ...extra,
    });
    for (const bad of [
      body('not a date'),
      body(new Date(Date.now() + 60_000).toISOString(), { sendAt: new Date(Date.now() + 120_000).toISOString() }),
      body(new Date(Date.now() + 7_200_000).toISOString(), { ttlSeconds: 3600 }),
    ]) {
      const answer = await call(cluster, 'POST', '/api/v1/tasks', bad);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: { field: 'displayAt' } } });
    }
  });
});
