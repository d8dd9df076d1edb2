import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, sinkUins, waitForEnd } from './helpers';

interface Job {
  id: string;
  state: string;
  listId: string;
  list?: { count: number };
  error?: { code: string };
}

/**
 * Audience sources end to end in the embedded profile: followers and a
 * targeting query (LevelFollowerStore, LevelAttributeIndex under the data
 * directory) become lists through the API's audience jobs, and a broadcast
 * on such a list reaches exactly that audience.
 */
describe('audience sources (embedded)', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeEach(async () => {
    dir = await makeTempDir('herald-embedded-audiences-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 16,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
  });

  afterEach(async () => {
    await cluster.stop();
    await dir.remove();
  });

  async function built(source: unknown): Promise<Job> {
    const created = await call<Job>(cluster, 'POST', '/api/v1/audiences', { accountId: 'acme', source });
    expect(created.status).toBe(202);
    let job = created.body;
    await waitFor(
      async () =>
        (job = (await call<Job>(cluster, 'GET', `/api/v1/audiences/${created.body.id}`)).body).state !== 'running',
      { message: 'the audience job to end' },
    );
    return job;
  }

  it('broadcasts to all followers of an account, and to a targeting query', async () => {
    const follows = [11, 7, 300, 42].map((uin) => ({ accountId: 'acme', uin, following: true, at: 1 }));
    expect(
      (
        await call(cluster, 'POST', '/api/v1/follows', {
          changes: [...follows, { accountId: 'acme', uin: 42, following: false, at: 2 }],
        })
      ).status,
    ).toBe(200);
    await cluster.login([7, 11, 300, 500, 501]);

    const fans = await built({ kind: 'followers' });
    expect(fans).toMatchObject({ state: 'done', list: { count: 3 } });
    const task = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: fans.listId,
      content: { body: 'hello fans' },
    });
    expect(task.status).toBe(201);
    expect((await waitForEnd(cluster, task.body.id)).state).toBe('COMPLETED');
    expect([...(await sinkUins(cluster, task.body.id))]).toEqual([7, 11, 300]);

    await cluster.attributes.putUsers([
      { uin: 500, region: 'eu', tags: ['beta'] },
      { uin: 501, region: 'eu' },
      { uin: 7, region: 'eu', tags: ['beta'] },
    ]);
    const beta = await built({ kind: 'targeting', query: 'region:eu AND tag:beta' });
    expect(beta).toMatchObject({ state: 'done', list: { count: 2 } });
    const targeted = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: beta.listId,
      content: { body: 'beta news' },
    });
    expect((await waitForEnd(cluster, targeted.body.id)).state).toBe('COMPLETED');
    expect([...(await sinkUins(cluster, targeted.body.id))]).toEqual([7, 500]);
  });

  it('a job over an empty audience fails, and no task can use its list', async () => {
    const empty = await built({ kind: 'targeting', query: 'tag:nobody' });
    expect(empty).toMatchObject({ state: 'failed', error: { code: 'LIST_EMPTY' } });
    const task = await call<{ error: { code: string } }>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: empty.listId,
      content: { body: 'x' },
    });
    expect(task.body.error.code).toBe('LIST_NOT_FOUND');
  });
});
