import { removedTotal, type Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, offlineUins, sinkUins, upload, waitForEnd } from './helpers';

/**
 * Which filters run is decided by the account's attributes and the task's
 * mode (docs/architecture.md, "The filter chain"): a followers-only account
 * (`accounts.followersOnly`) reaches only its followers, a targeted task
 * (`targeting`) only the users its query matches; each report counts what
 * those links removed, and `total = kept + sum of removed`.
 */
describe('follower check and targeting links (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-embedded-filter-chain-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      accounts: { followersOnly: ['club'] },
    });
    // uin 4 followed, then stopped: not a follower any more.
    const follows = [1, 2, 3, 4].map((uin) => ({ accountId: 'club', uin, following: true, at: 1 }));
    expect(
      (
        await call(cluster, 'POST', '/api/v1/follows', {
          changes: [...follows, { accountId: 'club', uin: 4, following: false, at: 2 }],
        })
      ).status,
    ).toBe(200);
    await cluster.attributes.putUsers([
      { uin: 2, region: 'eu', tags: ['beta'] },
      { uin: 5, region: 'eu', tags: ['beta'] },
      { uin: 6, region: 'eu' },
      { uin: 7, region: 'us', tags: ['beta'] },
    ]);
    await cluster.login([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  /** Sends `body` to `uins` from `accountId` and waits for the task to end. */
  async function broadcast(accountId: string, uins: number[], fields: Record<string, unknown> = {}): Promise<Task> {
    const list = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    expect(list.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId,
      listId: list.body.id,
      content: { body: `to ${uins.join(',')}` },
      ...fields,
    });
    expect(created.status).toBe(201);
    const task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');
    return task;
  }

  function expectReconciled(task: Task): void {
    const r = task.report;
    expect(r.kept + removedTotal(r)).toBe(r.total);
    expect(r.delivered + r.offline).toBe(r.kept);
  }

  it("a followers-only account's broadcast reaches only its followers", async () => {
    const task = await broadcast('club', [1, 2, 3, 4, 5, 6, 2]);
    expect(task.report).toMatchObject({ total: 7, kept: 3, removed: { duplicate: 1, not_follower: 3 } });
    expect(task.report.removed).not.toHaveProperty('targeting');
    expectReconciled(task);
    expect([...(await sinkUins(cluster, task.id))]).toEqual([1, 2, 3]);
    expect([...(await offlineUins(cluster, task.id))]).toEqual([]);
  });

  it("another account's broadcast of the same list reaches everyone, without a follower check", async () => {
    const task = await broadcast('acme', [1, 2, 3, 4, 5, 6]);
    expect(task.report).toMatchObject({ total: 6, kept: 6 });
    expect(task.report.removed).not.toHaveProperty('not_follower');
    expectReconciled(task);
    expect([...(await sinkUins(cluster, task.id))]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a targeted task reaches only the users its query matches', async () => {
    const task = await broadcast('acme', [2, 5, 6, 7, 8], { targeting: 'region:eu AND tag:beta' });
    expect(task.targeting).toBe('region:eu AND tag:beta');
    expect(task.report).toMatchObject({ total: 5, kept: 2, removed: { targeting: 3 } });
    expect(task.report.removed).not.toHaveProperty('not_follower');
    expectReconciled(task);
    expect([...(await sinkUins(cluster, task.id))]).toEqual([2, 5]);
  });

  it('a targeted task of a followers-only account passes both links, each user counted once under the first', async () => {
    // 1, 3: followers without the attributes; 5: matches but does not follow; 2: both.
    const task = await broadcast('club', [1, 2, 3, 5, 8], { targeting: 'tag:beta' });
    expect(task.report).toMatchObject({ total: 5, kept: 1, removed: { not_follower: 2, targeting: 2 } });
    expectReconciled(task);
    expect([...(await sinkUins(cluster, task.id))]).toEqual([2]);
  });

  it('refuses a malformed targeting query at creation, and creates nothing', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2]));
    const before = (await cluster.store.listTasks({ accountId: 'acme' })).tasks.length;
    const refused = await call<{ error: { code: string; details: Record<string, unknown> } }>(
      cluster,
      'POST',
      '/api/v1/tasks',
      {
        accountId: 'acme',
        listId: list.body.id,
        content: { body: 'never sent' },
        targeting: 'region:eu AND (tag:beta',
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'QUERY_INVALID', details: { field: 'targeting', position: 23 } });
    expect((await cluster.store.listTasks({ accountId: 'acme' })).tasks.length).toBe(before);
  });
});
