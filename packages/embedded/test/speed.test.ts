import type { ListMeta, Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * A task's speed end to end in the embedded profile (docs/scheduling.md
 * "Pacing", docs/account-quotas.md "Speed"): an account allowed a speed by
 * configuration creates a task with one through the API; the task is
 * delivered completely, every recipient taken from its executors' token
 * buckets (herald_executor_paced_recipients_total); a task without a speed is
 * not paced; an account whose maxSpeed is 0 asking for a speed gets 422 and
 * nothing is created.
 */
describe('task speed (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeEach(async () => {
    dir = await makeTempDir('herald-speed-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { unitSize: 100, batchSize: 50 },
      accounts: { defaultLimits: { maxSpeed: 1_000 } },
    });
  });

  afterEach(async () => {
    await cluster.stop();
    await dir.remove();
  });

  /** Recipients the executors took from token buckets, summed over them. */
  async function pacedRecipients(): Promise<number> {
    const body = (await cluster.meter.exposition()).body;
    let sum = 0;
    for (const match of body.matchAll(/^herald_executor_paced_recipients_total(?:\{[^}]*\})? (\d+)$/gm))
      sum += Number(match[1]);
    return sum;
  }

  it("sends a task at the speed its account may set, completely, through the executors' token buckets", async () => {
    const uins = Array.from({ length: 300 }, (_, i) => i * 3 + 1);
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));
    expect(list.status).toBe(201);
    // 300 recipients at 250/s: the buckets (one second's burst) make the last batches wait.
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'paced' },
      speed: 250,
    });
    expect(created).toMatchObject({ status: 201, body: { speed: 250 } });
    const done = await waitForEnd(cluster, created.body.id);
    expect(done).toMatchObject({ state: 'COMPLETED', speed: 250 });
    expect(done.report.delivered + done.report.offline).toBe(300);
    expect(await pacedRecipients()).toBe(300);

    // Without a speed nothing is paced: the counter stays where it was.
    const plain = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'plain' },
    });
    expect(plain).toMatchObject({ status: 201, body: { speed: null } });
    const plainDone = await waitForEnd(cluster, plain.body.id);
    expect(plainDone.state).toBe('COMPLETED');
    expect(plainDone.report.delivered + plainDone.report.offline).toBe(300);
    expect(await pacedRecipients()).toBe(300);
  });

  it('refuses a speed from an account whose maxSpeed is 0 with 422, creating nothing', async () => {
    expect((await call(cluster, 'PUT', '/api/v1/accounts/globex/limits', { maxSpeed: 0 })).status).toBe(200);
    const list = await upload<ListMeta>(cluster, '/api/v1/lists?accountId=globex', listBytes([2, 4, 6]));
    const refused = await call<{ error: { code: string; message: string; details: Record<string, unknown> } }>(
      cluster,
      'POST',
      '/api/v1/tasks',
      {
        accountId: 'globex',
        listId: list.body.id,
        content: { body: 'too fast' },
        speed: 10,
      },
    );
    expect(refused).toMatchObject({
      status: 422,
      body: {
        error: {
          code: 'ACCOUNT_QUOTA_EXCEEDED',
          details: { limit: 'maxSpeed', field: 'speed', max: 0, requested: 10 },
        },
      },
    });
    expect(refused.body.error.message).toContain('may not set a speed');
    expect((await cluster.store.listTasks({ accountId: 'globex' })).tasks).toHaveLength(0);
  });
});
