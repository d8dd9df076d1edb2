import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import { call, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

interface Entry {
  taskId: number;
  title: string | null;
  state: string;
  fate: string;
  link?: string;
  reason?: string;
}
interface HistoryAnswer {
  uin: number;
  entries: Entry[];
  scanned: number;
  nextCursor: string | null;
  error?: { code: string; details?: { field?: string } };
}

/**
 * A recipient's history end to end (docs/recipient-truth.md, "A recipient's
 * history"): four broadcasts of one account and one of another; the user's
 * history must list, newest first, the scheduled one (unknown, not filtered
 * yet), a repeat of the content (removed, already sent) and the first
 * (delivered online), leave out the broadcast it was not in and the other
 * account's, and page with a cursor to the same answer.
 */
describe("a recipient's history, embedded", () => {
  const uinSpaceBits = 20;
  const options = {
    uinSpaceBits,
    http: { port: 0 },
    auth: TEST_AUTH_OPTIONS,
    tasks: TEST_TASK_OPTIONS,
    dispatcher: { batchSize: 250, unitSize: 1000 },
    executor: { ids: ['executor-1'] },
    offline: { rangeBits: 12 },
  };
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  // 1,000 distinct uins, ~66 blacklisted, 40% online.
  const { blacklist, online, list } = mixedAudience(31, 1_000, 1_100, uinSpaceBits);
  const user = online.find((uin) => !blacklist.includes(uin))!;
  const blacklisted = blacklist[0]!;
  const withoutUser = list.filter((uin) => uin !== user);
  const tasks = {} as Record<'first' | 'without' | 'repeat' | 'scheduled' | 'globex', Task>;

  async function broadcast(accountId: string, uins: Uint32Array, body: string, extra: object = {}): Promise<Task> {
    const uploaded = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    expect(uploaded.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId,
      listId: uploaded.body.id,
      content: { body, title: `${body} title` },
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  beforeAll(async () => {
    dir = await makeTempDir('herald-history-');
    const gateway = new FileDeliverySink(join(dir.path, 'deliveries'));
    cluster = await startEmbeddedCluster({ dataDir: dir.path, ...options }, { gateway });
    for (const uin of online) cluster.online.setOnline(uin, true);
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist))).status).toBe(200);
    tasks.first = await waitForEnd(cluster, (await broadcast('acme', list, 'hello')).id);
    tasks.without = await waitForEnd(cluster, (await broadcast('acme', withoutUser, 'others only')).id);
    tasks.repeat = await waitForEnd(cluster, (await broadcast('acme', list, 'hello')).id);
    tasks.globex = await waitForEnd(cluster, (await broadcast('globex', list, 'globex news')).id);
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    tasks.scheduled = await broadcast('acme', list, 'later', { sendAt: inAnHour });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  const history = (uin: number | string, query: string) =>
    call<HistoryAnswer>(cluster, 'GET', `/api/v1/recipients/${uin}/history?${query}`);

  it('lists the broadcasts the user was in, newest first, each with its fate', async () => {
    expect(tasks.first.state).toBe('COMPLETED');
    const answer = await history(user, 'accountId=acme');
    expect(answer.status).toBe(200);
    expect(answer.body.entries).toEqual([
      expect.objectContaining({
        taskId: tasks.scheduled.id,
        // The scheduler may not have taken it up yet: CREATED or SCHEDULED, not filtered either way.
        state: expect.stringMatching(/^(CREATED|SCHEDULED)$/),
        fate: 'unknown',
        reason: expect.stringMatching(/not filtered yet/),
      }),
      expect.objectContaining({ taskId: tasks.repeat.id, fate: 'removed', link: 'already_sent' }),
      expect.objectContaining({
        taskId: tasks.first.id,
        title: 'hello title',
        state: 'COMPLETED',
        fate: 'delivered_online',
        executor: 'executor-1',
      }),
    ]);
    expect(answer.body).toMatchObject({ uin: user, scanned: 4, nextCursor: null });
    const removed = await history(blacklisted, 'accountId=acme');
    expect(removed.body.entries.map((e) => [e.taskId, e.fate, e.link])).toEqual([
      [tasks.scheduled.id, 'unknown', undefined],
      [tasks.repeat.id, 'removed', 'blacklisted'],
      [tasks.without.id, 'removed', 'blacklisted'],
      [tasks.first.id, 'removed', 'blacklisted'],
    ]);
  });

  it('pages one entry at a time with the cursor, to the same answer', async () => {
    const whole = (await history(user, 'accountId=acme')).body.entries.map((e) => e.taskId);
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: HistoryAnswer } = await history(
        user,
        `accountId=acme&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      paged.push(...page.body.entries.map((e) => e.taskId));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(paged).toEqual(whole);
  });

  it('reads only the window asked for', async () => {
    const from = new Date(tasks.repeat.createdAt + 1).toISOString();
    const recent = await history(user, `accountId=acme&from=${from}`);
    expect(recent.body.entries.map((e) => e.taskId)).toEqual([tasks.scheduled.id]);
    const to = new Date(tasks.without.createdAt).toISOString();
    const early = await history(user, `accountId=acme&to=${to}`);
    expect(early.body.entries.map((e) => e.taskId)).toEqual([tasks.first.id]);
    // A window that ended before the tasks holds none.
    const old = await history(user, 'accountId=acme&from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00%2B02:00');
    expect(old.body).toMatchObject({ entries: [], scanned: 0, nextCursor: null });
  });

  it('refuses bad input with a typed error naming the field', async () => {
    const refused: [string | number, string, number, string][] = [
      [2 ** uinSpaceBits, 'accountId=acme', 400, 'uin'],
      ['abc', 'accountId=acme', 400, 'uin'],
      [user, '', 400, 'accountId'],
      [user, 'accountId=Acme!', 400, 'accountId'],
      [user, 'accountId=acme&from=2026-02-30T00:00:00Z', 400, 'from'],
      [user, 'accountId=acme&to=yesterday', 400, 'to'],
      [user, 'accountId=acme&to=2026-06-01T00:00:00', 400, 'to'],
      [user, 'accountId=acme&from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z', 400, 'from'],
      [user, `accountId=acme&cursor=${user + 1}-5`, 400, 'cursor'],
      [user, 'accountId=acme&limit=0', 400, 'limit'],
      [user, 'accountId=acme&taskId=1', 400, 'taskId'],
    ];
    for (const [uin, query, status, field] of refused) {
      const answer = await history(uin, query);
      expect({ query, status: answer.status, field: answer.body.error?.details?.field }).toEqual({
        query,
        status,
        field,
      });
    }
  });

  it('answers 404 ACCOUNT_NOT_FOUND for an account the operator may not see, as for one that does not exist', async () => {
    const made = await call<{ token: string }>(cluster, 'POST', '/api/v1/tokens', {
      name: 'globex ops',
      role: 'operator',
      accounts: ['globex'],
    });
    const asGlobex = (accountId: string) =>
      fetch(`${cluster.url}/api/v1/recipients/${user}/history?accountId=${accountId}`, {
        headers: { authorization: `Bearer ${made.body.token}` },
      });
    const foreign = await asGlobex('acme');
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({
      error: { code: 'ACCOUNT_NOT_FOUND', details: { field: 'accountId' } },
    });
    const own = await asGlobex('globex');
    expect(own.status).toBe(200);
    expect(((await own.json()) as HistoryAnswer).entries.map((e) => e.taskId)).toEqual([tasks.globex.id]);
  });
});
