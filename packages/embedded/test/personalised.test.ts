import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { readDeliveryFile } from '@herald/executor';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * Personalised content end to end (docs/delivery.md): a template task's
 * recipients each get their own text, filled from the user attributes the
 * targeting store holds, online at once and offline users at login.
 */
describe('personalised content', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-personalised-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 20,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
    await cluster.attributes.putUsers([
      { uin: 11, region: 'gd', tags: ['vip'] },
      { uin: 12, region: 'sh' },
    ]);
    for (const uin of [11, 12, 13]) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it('gives two users different text, and a user without attributes the defaults', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([11, 12, 13, 14]));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { title: 'Hi {{uin}}', body: 'Hello {{region|default:"there"}}{{tags|default:""}}', template: true },
    });
    expect(created.status).toBe(201);
    const task = await waitForEnd(cluster, created.body.id);
    expect(task.report).toMatchObject({ delivered: 3, offline: 1 });

    expect(await cluster.login(Uint32Array.of(14))).toEqual({ delivered: 1, expired: 0, overFrequency: 0, held: 0 });
    const sink = await readDeliveryFile(cluster.deliveryDir, task.id);
    expect(sink.content).toEqual({
      title: 'Hi {{uin}}',
      body: 'Hello {{region|default:"there"}}{{tags|default:""}}',
      template: true,
    });
    expect(Object.fromEntries(sink.contents ?? [])).toEqual({
      11: { title: 'Hi 11', body: 'Hello gdvip' },
      12: { title: 'Hi 12', body: 'Hello sh' },
      13: { title: 'Hi 13', body: 'Hello there' },
      14: { title: 'Hi 14', body: 'Hello there' },
    });
  });
});
