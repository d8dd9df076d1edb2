import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * Guard rails proportional to reach on the embedded profile (issue 15):
 * a broadcast over its account's confirmAbove needs `confirm`, and a dry run
 * runs the task's real filter chain over its list, creating nothing, with
 * the counts the real run then reports. The production profile's cases are
 * in packages/production/test/production-broadcast.test.ts.
 */
describe('confirmation and dry runs (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-embedded-guard-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      accounts: { followersOnly: ['club'] },
    });
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes([1, 2]))).status).toBe(200);
    // club's followers: 3..12; uin 13 follows another account only.
    const follows = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((uin) => ({
      accountId: 'club',
      uin,
      following: true,
      at: 1,
    }));
    expect(
      (
        await call(cluster, 'POST', '/api/v1/follows', {
          changes: [...follows, { accountId: 'other', uin: 13, following: true, at: 1 }],
        })
      ).status,
    ).toBe(200);
    await cluster.attributes.putUsers([3, 4, 5, 6, 7, 8].map((uin) => ({ uin, region: uin % 2 === 0 ? 'eu' : 'us' })));
    await cluster.login([3, 4, 5, 6]);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function listOf(accountId: string, uins: number[]): Promise<string> {
    const list = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    expect(list.status).toBe(201);
    return list.body.id;
  }

  /** What a dry run must leave as it was. */
  async function storeSnapshot(accountId: string) {
    const tasks = (await cluster.store.listTasks({ limit: 1000 })).tasks.map((t) => `${t.id}:${t.state}`);
    const usage = (await call<{ usage: unknown }>(cluster, 'GET', `/api/v1/accounts/${accountId}/limits`)).body.usage;
    return { tasks, usage };
  }

  it("refuses a broadcast over the account's confirmAbove without its count, then creates it with it", async () => {
    expect((await call(cluster, 'PUT', '/api/v1/accounts/acme/limits', { confirmAbove: 3 })).status).toBe(200);
    const body = { accountId: 'acme', listId: await listOf('acme', [20, 21, 22, 23]), content: { body: 'confirm me' } };
    const before = await storeSnapshot('acme');
    const refused = await call<{ error: { code: string; details: unknown } }>(cluster, 'POST', '/api/v1/tasks', body);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual(
      expect.objectContaining({
        code: 'CONFIRMATION_REQUIRED',
        details: { field: 'confirm', recipients: 4, threshold: 3 },
      }),
    );
    expect((await call(cluster, 'POST', '/api/v1/tasks', { ...body, confirm: 5 })).status).toBe(409);
    expect(await storeSnapshot('acme')).toEqual(before);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', { ...body, confirm: 4 });
    expect(created.status).toBe(201);
    expect((await waitForEnd(cluster, created.body.id)).state).toBe('COMPLETED');
  });

  it('a dry run creates nothing and reports the counts the real run then filters', async () => {
    // An earlier broadcast of the same content to 3 and 4: the no-resend link removes them next time.
    const content = { body: 'the same content' };
    const first = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'club',
      listId: await listOf('club', [3, 4]),
      content,
    });
    expect((await waitForEnd(cluster, first.body.id)).state).toBe('COMPLETED');

    // 1, 2 blacklisted; 3, 4 already sent; 13, 14 not followers; 5 repeated; of the rest 6, 8 (eu) match the query, 5, 7, 9 do not.
    const listId = await listOf('club', [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 13, 14]);
    const request = { accountId: 'club', listId, content, targeting: 'region:eu', speed: undefined };
    const before = await storeSnapshot('club');
    const dry = await call<Record<string, any>>(cluster, 'POST', '/api/v1/tasks?dryRun=true', request);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      confirmationRequired: false,
      recipients: {
        listed: 12,
        kept: 2,
        removed: { duplicate: 1, blacklisted: 2, already_sent: 2, not_follower: 2, targeting: 3 },
      },
      estimatedSendMs: null,
    });
    expect(await storeSnapshot('club')).toEqual(before);

    const real = await call<Task>(cluster, 'POST', '/api/v1/tasks', request);
    expect(real.status).toBe(201);
    const task = await waitForEnd(cluster, real.body.id);
    expect(task.state).toBe('COMPLETED');
    expect({ listed: task.report.total, kept: task.report.kept, removed: task.report.removed }).toEqual(
      dry.body.recipients,
    );
  });
});
