import { ListFlags } from '@herald/core/recipient-list';
import { removedTotal, type ListMeta, type Task } from '@herald/core/task';
import { readRecipientListHeader, syntheticAudience } from '@herald/audience';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, expectedSplit, listBytes, offlineUins, sinkUins, upload, waitForEnd } from './helpers';

/**
 * A 10^5-recipient broadcast through the real tiers of an embedded cluster,
 * driven over the HTTP API: duplicates, blacklisted ids, 30% online. The file
 * sink must hold exactly the online kept recipients and the offline lists
 * exactly the rest.
 */
describe('embedded broadcast, end to end', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 24;
  const audience = syntheticAudience({
    recipients: 100_000,
    onlineFraction: 0.3,
    uinLimit: 2 ** uinSpaceBits,
    seed: 7,
  });
  const expected = expectedSplit(audience);

  beforeAll(async () => {
    dir = await makeTempDir('herald-e2e-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { batchSize: 1000, unitSize: 30_000 },
      executor: { ids: ['executor-1', 'executor-2'] },
      offline: { rangeBits: 12 },
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  let task: Task;

  it('delivers to exactly the online kept recipients and queues exactly the rest', async () => {
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(audience.blacklist))).status).toBe(200);
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    expect(list.status).toBe(201);
    expect(list.body.count).toBe(100_000);

    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'hello' },
    });
    expect(created.status).toBe(201);
    task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');

    const r = task.report;
    expect(r.total).toBe(100_000);
    expect(r.removed.duplicate).toBe(audience.list.length - audience.distinct.length);
    expect(r.removed.blacklisted).toBe(audience.distinct.length - expected.kept.length);
    expect(r.removed.already_sent).toBe(0);
    expect(r.kept).toBe(expected.kept.length);
    expect(r.delivered).toBe(expected.online.length);
    expect(r.offline).toBe(expected.offline.length);
    expect(r.delivered + r.offline + removedTotal(r)).toBe(r.total);
    expect(r.units).toBe(Math.ceil(expected.kept.length / 30_000));
    expect(r.unitsDone).toBe(r.units);

    expect(await sinkUins(cluster, task.id)).toEqual(expected.online);
    expect(await offlineUins(cluster, task.id)).toEqual(expected.offline);
  });

  it('never sends the same content to a user twice, across tasks', async () => {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const again = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'hello' },
    });
    const done = await waitForEnd(cluster, again.body.id);
    expect(done.state).toBe('COMPLETED');
    expect(done.report.removed.already_sent).toBe(expected.kept.length);
    expect(done.report.kept).toBe(0);
    expect(await sinkUins(cluster, done.id)).toEqual(new Uint32Array(0));
  });

  it('delivers offline entries at login, once', async () => {
    const users = expected.offline.subarray(0, 50);
    const first = await cluster.login(users);
    expect(first).toEqual({ delivered: 50, expired: 0, overFrequency: 0, held: 0 });
    const second = await cluster.login(users);
    expect(second).toEqual({ delivered: 0, expired: 0, overFrequency: 0, held: 0 });
    const atLogin = (await sinkUins(cluster, task.id)).length - expected.online.length;
    expect(atLogin).toBe(50);
    expect((await offlineUins(cluster, task.id)).length).toBe(expected.offline.length - 50);
  });

  describe('bad input gets a clear error and loses nothing', () => {
    const expectError = (answer: { status: number; body: unknown }, status: number, code: string) => {
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ error: { code } });
    };

    it('rejects damaged list uploads with their codes', async () => {
      const good = listBytes([1, 2, 3]);
      expectError(await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([])), 422, 'LIST_EMPTY');
      expectError(
        await upload(cluster, '/api/v1/lists?accountId=acme', good.subarray(0, good.length - 3)),
        400,
        'LIST_TRUNCATED',
      );
      const badMagic = Buffer.from(good);
      badMagic[0] = 0x58;
      expectError(await upload(cluster, '/api/v1/lists?accountId=acme', badMagic), 400, 'LIST_BAD_MAGIC');
      expectError(
        await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([5, 2 ** uinSpaceBits])),
        400,
        'LIST_UIN_OUT_OF_RANGE',
      );
      expectError(await upload(cluster, '/api/v1/lists?accountId=BAD-ID', good), 400, 'VALIDATION_FAILED');
    });

    it('rejects malformed task requests and unknown ids', async () => {
      // Malformed JSON has its own code since issue 15 (it was VALIDATION_FAILED).
      expectError(await call(cluster, 'POST', '/api/v1/tasks', '{"accountId": '), 400, 'MALFORMED_JSON');
      expectError(await call(cluster, 'POST', '/api/v1/tasks', { accountId: 'acme' }), 400, 'VALIDATION_FAILED');
      expectError(
        await call(cluster, 'POST', '/api/v1/tasks', { accountId: 'acme', listId: 'l_nope', content: { body: 'x' } }),
        404,
        'LIST_NOT_FOUND',
      );
      expectError(
        await call(cluster, 'POST', '/api/v1/tasks', {
          accountId: 'acme',
          listId: 'l_x',
          content: { body: 'x' },
          sendAt: 'tomorrow',
        }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await call(cluster, 'GET', '/api/v1/tasks/999999'), 404, 'TASK_NOT_FOUND');
      expectError(await call(cluster, 'GET', '/api/v1/tasks/abc'), 400, 'VALIDATION_FAILED');
      expectError(await call(cluster, 'POST', '/api/v1/tasks/999999/cancel'), 404, 'TASK_NOT_FOUND');
      expectError(await call(cluster, 'POST', `/api/v1/tasks/${task.id}/cancel`), 409, 'ILLEGAL_TRANSITION');
    });

    it('keeps what was accepted before', async () => {
      const stored = await call<Task>(cluster, 'GET', `/api/v1/tasks/${task.id}`);
      expect(stored.body.state).toBe('COMPLETED');
      expect(stored.body.report.delivered).toBe(expected.online.length);
      expect((await sinkUins(cluster, task.id)).length).toBe(expected.online.length + 50);
      const lists = await call<ListMeta>(cluster, 'GET', `/api/v1/lists/${task.listId}`);
      expect(lists.body.count).toBe(100_000);
    });
  });

  it('lists tasks with keyset paging', async () => {
    const page = await call<{ tasks: Task[]; nextCursor: number | null }>(
      cluster,
      'GET',
      '/api/v1/tasks?accountId=acme&limit=1',
    );
    expect(page.body.tasks).toHaveLength(1);
    expect(page.body.nextCursor).toBe(page.body.tasks[0]!.id);
    const next = await call<{ tasks: Task[]; nextCursor: number | null }>(
      cluster,
      'GET',
      `/api/v1/tasks?accountId=acme&limit=10&cursor=${page.body.nextCursor}`,
    );
    expect(next.body.tasks.every((t) => t.id > page.body.nextCursor!)).toBe(true);
  });

  it('writes the filtered list sorted and distinct, with the kept count', async () => {
    const stored = await cluster.store.getTask(task.id);
    const header = await readRecipientListHeader(cluster.lists.pathOf(stored!.filteredListId!));
    expect(header.flags).toBe(ListFlags.SORTED | ListFlags.UNIQUE);
    expect(header.count).toBe(expected.kept.length);
  });
});
