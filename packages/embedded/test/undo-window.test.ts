import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, offlineUins, sinkUins, upload, waitForEnd, waitForState } from './helpers';

/**
 * The undo window (issue 15), on the default tasks.undoGraceMs (10 s): a task
 * created to start now waits in SCHEDULED, where a cancel ends it with
 * nothing sent; once the grace has passed it sends. The cluster's clock is
 * moved forward instead of waiting out the grace.
 */
describe('the undo window (embedded, default tasks.undoGraceMs)', () => {
  const GRACE = 10_000;
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let ahead = 0;
  const clock = { now: () => Date.now() + ahead };

  beforeAll(async () => {
    dir = await makeTempDir('herald-embedded-undo-');
    cluster = await startEmbeddedCluster(
      { dataDir: dir.path, uinSpaceBits: 16, http: { port: 0 }, auth: TEST_AUTH_OPTIONS, scheduler: { tickMs: 50 } },
      { clock },
    );
    await cluster.login([1, 2, 3]);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function createNow(body: string): Promise<Task> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3, 4, 5]));
    expect(list.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body },
    });
    expect(created.status).toBe(201);
    // No sendAt: it starts when the grace is over.
    expect(created.body.sendAt - created.body.createdAt).toBe(GRACE);
    return created.body;
  }

  it('a task to start now waits in SCHEDULED; cancelled there, it ends CANCELLED with nothing sent', async () => {
    const task = await createNow('oops');
    await waitForState(cluster, task.id, ['SCHEDULED']);
    const cancel = await call(cluster, 'POST', `/api/v1/tasks/${task.id}/cancel`);
    expect(cancel.status).toBe(202);
    const ended = await waitForEnd(cluster, task.id);
    expect(ended.state).toBe('CANCELLED');
    expect(ended.report).toMatchObject({ delivered: 0, offline: 0, units: 0 });
    expect(ended.filteredListId).toBeNull();
    expect((await sinkUins(cluster, task.id)).length).toBe(0);
    expect((await offlineUins(cluster, task.id)).length).toBe(0);
  });

  it('once the grace has passed, it sends', async () => {
    const task = await createNow('meant it');
    await waitForState(cluster, task.id, ['SCHEDULED']);
    ahead += GRACE;
    const ended = await waitForEnd(cluster, task.id);
    expect(ended.state).toBe('COMPLETED');
    expect(ended.report).toMatchObject({ total: 5, kept: 5, delivered: 3, offline: 2 });
    expect([...(await sinkUins(cluster, task.id))]).toEqual([1, 2, 3]);
  });
});
