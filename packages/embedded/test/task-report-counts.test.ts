import type { RecipientFate } from '@herald/core/fate';
import type { Task, TaskReport } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

/**
 * The counts at the top of the task page (GET /api/v1/tasks/:id `report`:
 * kept, pushed online, queued offline, removed by link) against the delivery
 * report's rows counted by fate (docs/recipient-truth.md, "The delivery
 * report"): they must agree for a broadcast of 10^5 with duplicates,
 * blacklisted ids, online and offline recipients, after logins, and for a
 * second task whose no-resend link removes everyone. bench/report-export.js
 * makes the same check at 10^6.
 */
describe('the task page counts and the delivery report, embedded', () => {
  const uinSpaceBits = 22;
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  // 100,000 distinct uins, about 10% listed twice, 6.6% blacklisted, 40% online.
  const { distinct, blacklist, online, list } = mixedAudience(29, 100_000, 130_000, uinSpaceBits);

  beforeAll(async () => {
    dir = await makeTempDir('herald-report-counts-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 100_000, burst: 100_000 } },
      tasks: TEST_TASK_OPTIONS,
      executor: { ids: ['executor-1', 'executor-2'] },
    });
    for (const uin of online) cluster.online.setOnline(uin, true);
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist))).status).toBe(200);
  });
  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function broadcast(): Promise<Task> {
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    expect(uploaded.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'counts' },
      confirm: uploaded.body.count,
    });
    expect(created.status).toBe(201);
    return waitForEnd(cluster, created.body.id);
  }

  /** The report's NDJSON rows counted the way the task page counts. */
  async function reportCounts(taskId: number) {
    const response = await fetch(`${cluster.url}/api/v1/tasks/${taskId}/report`, {
      headers: { ...authHeaders(), accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    const counts = { rows: 0, kept: 0, delivered: 0, offline: 0, removed: {} as Record<string, number> };
    const text = await response.text();
    for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
      const row = JSON.parse(text.slice(start, end)) as RecipientFate;
      counts.rows++;
      if (row.position !== undefined) counts.kept++;
      if (row.fate === 'delivered_online') counts.delivered++;
      if (row.fate === 'queued_offline') counts.offline++;
      if (row.fate === 'removed') counts.removed[row.link] = (counts.removed[row.link] ?? 0) + 1;
      if (row.duplicateCopiesRemoved !== undefined)
        counts.removed.duplicate = (counts.removed.duplicate ?? 0) + row.duplicateCopiesRemoved;
    }
    return counts;
  }

  /** What the task page shows, as the API reports it; links that removed no one left out. */
  async function pageCounts(taskId: number) {
    const { status, body } = await call<Task>(cluster, 'GET', `/api/v1/tasks/${taskId}`);
    expect(status).toBe(200);
    const report: TaskReport = body.report;
    const removed = Object.fromEntries(Object.entries(report.removed).filter(([, n]) => (n ?? 0) > 0));
    return { report, removed };
  }

  async function expectAgree(taskId: number): Promise<void> {
    const rows = await reportCounts(taskId);
    const { report, removed } = await pageCounts(taskId);
    expect({ kept: rows.kept, delivered: rows.delivered, offline: rows.offline, removed: rows.removed }).toEqual({
      kept: report.kept,
      delivered: report.delivered,
      offline: report.offline,
      removed,
    });
    const removedTotal = Object.values(removed).reduce((a, b) => a + (b ?? 0), 0);
    expect(report.kept + removedTotal).toBe(report.total);
    expect(rows.rows).toBe(distinct.length);
  }

  it('agree for a completed broadcast, before and after logins, and for one no-resend removes', async () => {
    const first = await broadcast();
    expect(first.state).toBe('COMPLETED');
    await expectAgree(first.id);
    const isOnline = new Set(online);
    const loggingIn = distinct.filter((uin, i) => i % 7 === 0 && !isOnline.has(uin));
    expect((await cluster.login(loggingIn)).delivered).toBeGreaterThan(0);
    await expectAgree(first.id);

    const second = await broadcast();
    expect(second.state).toBe('COMPLETED');
    await expectAgree(second.id);
    expect((await pageCounts(second.id)).report.kept).toBe(0);
  }, 60_000);
});
