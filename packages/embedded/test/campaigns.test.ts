import type { Campaign } from '@herald/core/campaign';
import type { ListMeta, Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  authHeaders,
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_CAMPAIGN_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { listBytes, sinkUins, waitForEnd } from './helpers';

/**
 * A cron campaign end to end in the embedded profile: created through the
 * API, fired by the embedded controller at its scheduled second (node-cron
 * wakes it; the misfire policy decides), handed to the scheduler, and
 * delivered like any task; one task per scheduled time.
 */
describe('cron campaigns (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeEach(async () => {
    dir = await makeTempDir('herald-campaigns-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      campaigns: { ...TEST_CAMPAIGN_OPTIONS, scanIntervalMs: 200 },
    });
  });

  afterEach(async () => {
    await cluster.stop();
    await dir.remove();
  });

  async function api<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(cluster.url + path, {
      method,
      headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  it('fires each second of an every-second campaign once, and each firing is delivered', async () => {
    const uins = [3, 5, 8, 13, 21];
    await cluster.login(uins);
    const list = await api<ListMeta>(
      'POST',
      '/api/v1/lists?accountId=acme',
      listBytes(uins),
      'application/octet-stream',
    );
    expect(list.status).toBe(201);
    const created = await api<Campaign & { nextFireTimes: string[] }>('POST', '/api/v1/campaigns', {
      accountId: 'acme',
      name: 'every second',
      cron: '* * * * * *',
      timeZone: 'UTC',
      template: { listId: list.body.id, content: { body: 'tick' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.nextFireTimes).toHaveLength(5);

    let tasks: Task[] = [];
    await waitFor(
      async () => {
        tasks = (await cluster.store.listTasks({ accountId: 'acme' })).tasks;
        return tasks.length >= 2;
      },
      { timeoutMs: 20_000, message: 'the campaign did not fire twice' },
    );
    await api('POST', `/api/v1/campaigns/${created.body.id}/disable`);

    const first = await waitForEnd(cluster, tasks[0]!.id);
    expect(first.state).toBe('COMPLETED');
    expect([...(await sinkUins(cluster, first.id))]).toEqual(uins);
    // One task per scheduled second, each named by its key; every one recorded fired with it.
    const all = (await cluster.store.listTasks({ accountId: 'acme' })).tasks;
    const keys = all.map((t) => t.idempotencyKey!);
    expect(new Set(keys).size).toBe(all.length);
    for (const key of keys) expect(key).toMatch(new RegExp(`^campaign:${created.body.id}:\\d+000$`));
    const history = await api<{ firings: { scheduledAt: number; outcome: string; taskId: number | null }[] }>(
      'GET',
      `/api/v1/campaigns/${created.body.id}/firings`,
    );
    const fired = history.body.firings.filter((f) => f.outcome === 'fired');
    expect(fired.map((f) => f.taskId).sort()).toEqual(all.map((t) => t.id).sort());
  });
});
