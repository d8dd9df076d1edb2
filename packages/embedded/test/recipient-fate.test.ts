import type { RecipientFate } from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster, type EmbeddedDeps } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import { call, GatedGateway, inFlight, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

/**
 * Per-recipient truth end to end (docs/recipient-truth.md): a broadcast with
 * duplicates, blacklisted ids, online and offline recipients, some of whom
 * log in afterwards; every recipient's answer from GET
 * /api/v1/tasks/:id/recipients/:uin must match what the test computes from
 * the audience it built, and still after the cluster restarts.
 */
describe('a recipient fate, embedded', () => {
  const uinSpaceBits = 20;
  const options = {
    uinSpaceBits,
    http: { port: 0 },
    // Thousands of lookups from one token: above its default rate.
    auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 100_000, burst: 100_000 } },
    tasks: TEST_TASK_OPTIONS,
    dispatcher: { batchSize: 250, unitSize: 1500 },
    executor: { ids: ['executor-1', 'executor-2'] },
    offline: { rangeBits: 12 },
  };
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let gate: GatedGateway;

  // The audience, built here: 3,000 distinct uins, 300 of them listed twice, 200 blacklisted, 40% online.
  const { random, distinct, repeated, blacklist, online, list } = mixedAudience(19, 3_000, 3_300, uinSpaceBits);
  const isBlack = new Set(blacklist);
  const isOnline = new Set(online);
  const kept = distinct.filter((uin) => !isBlack.has(uin));
  const offline = kept.filter((uin) => !isOnline.has(uin));
  const loggedIn = offline.subarray(0, 100);
  const outsiders = Uint32Array.from({ length: 200 }, () => Math.floor(random() * 2 ** uinSpaceBits)).filter(
    (uin) => !distinct.includes(uin),
  );

  /** What the answer must be, from the audience alone. */
  function truth(uin: number): Partial<RecipientFate> {
    const copies = repeated.includes(uin) ? { duplicateCopiesRemoved: 1 } : {};
    if (!distinct.includes(uin)) return { uin, fate: 'not_in_audience' };
    if (isBlack.has(uin)) return { uin, ...copies, fate: 'removed', link: 'blacklisted' };
    const position = kept.indexOf(uin);
    if (isOnline.has(uin)) return { uin, position, ...copies, fate: 'delivered_online', atLogin: false };
    return { uin, position, ...copies, fate: 'queued_offline' };
  }

  const start = async () => {
    gate = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    const deps: EmbeddedDeps = { gateway: gate };
    cluster = await startEmbeddedCluster({ dataDir: dir.path, ...options }, deps);
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-fate-');
    await start();
    for (const uin of online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  const fateOf = (taskId: number, uin: number | string) =>
    call<RecipientFate & { taskId: number; error?: { code: string; details?: { field?: string } } }>(
      cluster,
      'GET',
      `/api/v1/tasks/${taskId}/recipients/${uin}`,
    );

  /** Every uin's answer checked, 32 lookups in flight: a lookup mostly waits on file and LevelDB reads. */
  async function expectTruth(taskId: number, uins: Iterable<number>, loggedInSet: Set<number>): Promise<void> {
    await inFlight([...uins], 32, async (uin) => {
      const answer = await fateOf(taskId, uin);
      expect(answer.status).toBe(200);
      const expected = truth(uin);
      expect(answer.body).toMatchObject({ taskId, ...expected });
      if (expected.fate === 'delivered_online' || expected.fate === 'queued_offline')
        expect(['executor-1', 'executor-2']).toContain((answer.body as { executor: string }).executor);
      if (expected.fate === 'queued_offline') {
        const then = (answer.body as Extract<RecipientFate, { fate: 'queued_offline' }>).then;
        expect(then.outcome).toBe(loggedInSet.has(uin) ? 'delivered_at_login' : 'waiting');
      }
      if (expected.duplicateCopiesRemoved === undefined)
        expect(answer.body).not.toHaveProperty('duplicateCopiesRemoved');
    });
  }

  let task: Task;
  const everyone = () => [...distinct, ...outsiders];

  it("answers every recipient's fate as the audience says, before and after logins", async () => {
    const black = await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist));
    expect(black.status).toBe(200);
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    expect(uploaded.status).toBe(201);
    gate.hold();
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'hello' },
    });
    expect(created.status).toBe(201);
    // Held at the gateway: nothing is confirmed, so a kept recipient is not reached yet (never "not delivered").
    await waitFor(() => gate.waiting > 0, { timeoutMs: 30_000 });
    const waiting = await fateOf(created.body.id, kept[kept.length - 1]!);
    expect(waiting.body).toMatchObject({ fate: 'not_reached', taskState: 'SENDING' });
    gate.release();
    task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.removed).toMatchObject({ duplicate: repeated.length, blacklisted: blacklist.length });

    await expectTruth(task.id, everyone(), new Set());
    expect(await cluster.login(loggedIn)).toMatchObject({ delivered: loggedIn.length });
    await expectTruth(task.id, offline, new Set(loggedIn));
  }, 180_000);

  it('keeps every answer across a restart of the cluster', async () => {
    await cluster.stop();
    await start();
    await expectTruth(task.id, everyone(), new Set(loggedIn));
  }, 180_000);

  it('names the no-resend link for a second task of the same content', async () => {
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'hello' },
    });
    const again = await waitForEnd(cluster, created.body.id);
    for (const uin of kept.subarray(0, 50))
      expect((await fateOf(again.id, uin)).body).toMatchObject({ fate: 'removed', link: 'already_sent' });
    expect((await fateOf(again.id, blacklist[0]!)).body).toMatchObject({ fate: 'removed', link: 'blacklisted' });
  });

  describe('bad input', () => {
    it('refuses a uin outside the uin space or not a number, naming the field', async () => {
      for (const uin of [2 ** uinSpaceBits, 'abc', '-1', '01']) {
        const answer = await fateOf(task.id, uin);
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'uin' } });
      }
      const badId = await call<{ error: { details: { field: string } } }>(
        cluster,
        'GET',
        '/api/v1/tasks/x/recipients/1',
      );
      expect(badId.status).toBe(400);
      expect(badId.body.error.details.field).toBe('id');
    });

    it("answers 404 for a missing task and for another account's operator", async () => {
      expect((await fateOf(999_999, 1)).status).toBe(404);
      const made = await call<{ token: string }>(cluster, 'POST', '/api/v1/tokens', {
        name: 'other ops',
        role: 'operator',
        accounts: ['other'],
      });
      expect(made.status).toBe(201);
      const response = await fetch(`${cluster.url}/api/v1/tasks/${task.id}/recipients/${kept[0]}`, {
        headers: { authorization: `Bearer ${made.body.token}` },
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
    });

    it('answers 409 TASK_NOT_PREPROCESSED for a task whose list is not filtered yet', async () => {
      const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
      const later = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
        accountId: 'acme',
        listId: uploaded.body.id,
        content: { body: 'later' },
        sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(later.status).toBe(201);
      const answer = await fateOf(later.body.id, kept[0]!);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'TASK_NOT_PREPROCESSED', details: { field: 'id' } });
    });
  });
});
