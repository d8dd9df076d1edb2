import type { RecipientFate } from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import { call, inFlight, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

/**
 * The delivery report end to end (docs/recipient-truth.md, "The delivery
 * report"): a broadcast with duplicates, blacklisted ids, online and offline
 * recipients (some logging in afterwards) and a second task whose no-resend
 * link removes the first's recipients; its CSV and NDJSON must hold exactly
 * one row per distinct audience recipient, ascending, each agreeing with GET
 * /api/v1/tasks/:id/recipients/:uin, and a cursor must resume after a row.
 */
describe('the delivery report, embedded', () => {
  const uinSpaceBits = 20;
  const options = {
    uinSpaceBits,
    http: { port: 0 },
    auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 100_000, burst: 100_000 } },
    tasks: TEST_TASK_OPTIONS,
    dispatcher: { batchSize: 250, unitSize: 1000 },
    executor: { ids: ['executor-1', 'executor-2'] },
    offline: { rangeBits: 12 },
  };
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  // 1,500 distinct uins, 150 listed twice, 100 blacklisted, 40% online; 50 offline ones log in.
  const { distinct, repeated, blacklist, online, list } = mixedAudience(23, 1_500, 1_700, uinSpaceBits);
  const kept = distinct.filter((uin) => !blacklist.includes(uin));
  const offline = kept.filter((uin) => !online.includes(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-report-');
    const gateway = new FileDeliverySink(join(dir.path, 'deliveries'));
    cluster = await startEmbeddedCluster({ dataDir: dir.path, ...options }, { gateway });
    for (const uin of online) cluster.online.setOnline(uin, true);
  });
  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function broadcast(body: string): Promise<Task> {
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    expect(uploaded.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body },
    });
    expect(created.status).toBe(201);
    return waitForEnd(cluster, created.body.id);
  }

  const report = async (taskId: number, query = '', accept?: string) => {
    const response = await fetch(`${cluster.url}/api/v1/tasks/${taskId}/report${query}`, {
      headers: { ...authHeaders(), ...(accept === undefined ? {} : { accept }) },
    });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  const ndjson = (text: string) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecipientFate & { taskId: number });
  const fateOf = async (taskId: number, uin: number) =>
    (await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${taskId}/recipients/${uin}`)).body;

  /** The report's rows, NDJSON and CSV, against the per-recipient answers, one row per distinct audience uin. */
  async function expectReportAgrees(task: Task): Promise<RecipientFate[]> {
    const json = await report(task.id, '', 'application/x-ndjson');
    expect(json).toMatchObject({ status: 200, type: 'application/x-ndjson' });
    const rows = ndjson(json.text);
    expect(rows.map((row) => row.uin)).toEqual([...distinct]);
    await inFlight(rows, 32, async (row) =>
      expect(row).toEqual({ taskId: task.id, ...(await fateOf(task.id, row.uin)) }),
    );

    const csv = await report(task.id);
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    const [header, ...lines] = csv.text.trimEnd().split('\n');
    expect(header).toBe('uin,position,fate,detail,at,executor,then_at');
    expect(lines).toHaveLength(distinct.length);
    lines.forEach((line, i) => {
      const row = rows[i]!;
      const [uin, position, fate] = line.split(',');
      expect({ uin: Number(uin), position: position === '' ? undefined : Number(position), fate }).toEqual({
        uin: row.uin,
        position: row.position,
        fate: row.fate,
      });
      if (row.fate === 'removed') expect(line.split(',')[3]).toBe(row.link);
      if (row.fate === 'delivered_online') expect(line).toContain(`${new Date(row.at).toISOString()},${row.executor}`);
      if (row.fate === 'queued_offline') expect(line.split(',')[3]).toBe(row.then.outcome);
    });
    return rows;
  }

  let first: Task;

  it('reports every recipient once, as the per-recipient answer says, before and after logins', async () => {
    const black = await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist));
    expect(black.status).toBe(200);
    first = await broadcast('hello');
    expect(first.state).toBe('COMPLETED');
    const rows = await expectReportAgrees(first);
    const count = (fate: string) => rows.filter((row) => row.fate === fate).length;
    expect({
      removed: count('removed'),
      online: count('delivered_online'),
      offline: count('queued_offline'),
    }).toEqual({ removed: blacklist.length, online: kept.length - offline.length, offline: offline.length });
    expect(rows.filter((row) => row.duplicateCopiesRemoved === 1)).toHaveLength(repeated.length);

    expect(await cluster.login(offline.subarray(0, 50))).toMatchObject({ delivered: 50 });
    const after = await expectReportAgrees(first);
    expect(
      after.filter((row) => row.fate === 'queued_offline' && row.then.outcome === 'delivered_at_login'),
    ).toHaveLength(50);
  });

  it('reports the no-resend link of a second task of the same content', async () => {
    const again = await broadcast('hello');
    const rows = await expectReportAgrees(again);
    expect(rows.filter((row) => row.fate === 'removed' && row.link === 'already_sent')).toHaveLength(kept.length);
  });

  it('resumes after the cursor with the rest, in both forms', async () => {
    const rows = ndjson((await report(first.id, '', 'application/x-ndjson')).text);
    const cut = rows[600]!.uin;
    const rest = ndjson((await report(first.id, `?cursor=${first.id}-${cut}`, 'application/x-ndjson')).text);
    expect(rest).toEqual(rows.slice(601));
    const csv = (await report(first.id, `?cursor=${first.id}-${cut}`)).text.trimEnd().split('\n');
    expect(csv).toHaveLength(1 + rows.length - 601);
    expect(csv[1]!.split(',')[0]).toBe(String(rows[601]!.uin));
    const last = rows[rows.length - 1]!.uin;
    expect((await report(first.id, `?cursor=${first.id}-${last}`)).text).toBe(
      'uin,position,fate,detail,at,executor,then_at\n',
    );
  });

  describe('bad input', () => {
    it('refuses a malformed cursor, one of another task or outside the uin space, naming cursor', async () => {
      for (const cursor of ['abc', `${first.id}`, `${first.id}-x`, `${first.id + 1}-5`, `${first.id}-${2 ** 20}`]) {
        const answer = await call<{ error: { code: string; details: { field: string } } }>(
          cluster,
          'GET',
          `/api/v1/tasks/${first.id}/report?cursor=${encodeURIComponent(cursor)}`,
        );
        expect({ cursor, status: answer.status, error: answer.body.error }).toMatchObject({
          cursor,
          status: 400,
          error: { code: 'VALIDATION_FAILED', details: { field: 'cursor' } },
        });
      }
      const unknown = await call(cluster, 'GET', `/api/v1/tasks/${first.id}/report?after=5`);
      expect(unknown.status).toBe(400);
    });

    it("answers 404 for a missing task and for another account's operator", async () => {
      expect((await report(999_999)).status).toBe(404);
      const made = await call<{ token: string }>(cluster, 'POST', '/api/v1/tokens', {
        name: 'other ops',
        role: 'operator',
        accounts: ['other'],
      });
      expect(made.status).toBe(201);
      const response = await fetch(`${cluster.url}/api/v1/tasks/${first.id}/report`, {
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
      const answer = await call<{ error: unknown }>(cluster, 'GET', `/api/v1/tasks/${later.body.id}/report`);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'TASK_NOT_PREPROCESSED', details: { field: 'id' } });
    });
  });
});
