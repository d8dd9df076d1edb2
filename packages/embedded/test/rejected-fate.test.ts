import type { FunnelStage, RecipientFate } from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import type { WebhookBatch } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  authHeaders,
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  WebhookReceiver,
  type TempDir,
  type WebhookAnswer,
} from '@herald/testing';
import { call, inFlight, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

/**
 * The rejected fate end to end (docs/recipient-truth.md): a webhook that
 * rejects some uins of each batch for good, by reason. Every rejected uin
 * must answer `rejected` with the receiver's reason, every other one as
 * before; the report's rows must be those answers; the funnel and the
 * task's own counts must be the rows counted by fate.
 */
describe('recipients the channel rejects, embedded', () => {
  const uinSpaceBits = 20;
  let dir: TempDir;
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;

  // 2,000 distinct uins, about 200 listed twice, about 130 blacklisted, 40% online.
  const { distinct, blacklist, online, list } = mixedAudience(41, 2_000, 2_200, uinSpaceBits);
  const isBlack = new Set(blacklist);
  const isOnline = new Set(online);
  /** The receiver's verdict on a uin: two reasons, one of them (a label with a dot) in a few batches only. */
  const reasonOf = (uin: number) => (uin % 5 === 0 ? 'unregistered' : uin % 13 === 0 ? 'bad.token' : undefined);

  beforeAll(async () => {
    dir = await makeTempDir('herald-rejected-fate-');
    receiver = await WebhookReceiver.start();
    receiver.answerBy((request): WebhookAnswer => {
      const rejected = (request.body as WebhookBatch).uins.flatMap((uin) => {
        const reason = reasonOf(uin);
        return reason === undefined ? [] : [{ uin, reason }];
      });
      return { status: 200, body: JSON.stringify({ rejected }) };
    });
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 100_000, burst: 100_000 } },
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { batchSize: 200, unitSize: 1000 },
      executor: { ids: ['executor-1', 'executor-2'] },
      delivery: { kind: 'webhook', webhook: { url: receiver.url, timeoutMs: 5_000 } },
    });
    for (const uin of online) cluster.online.setOnline(uin, true);
  });
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  /** What the test knows of each uin without asking Herald. */
  function expectedOf(uin: number): Pick<RecipientFate, 'fate'> & { reason?: string } {
    if (isBlack.has(uin)) return { fate: 'removed' };
    if (!isOnline.has(uin)) return { fate: 'queued_offline' };
    const reason = reasonOf(uin);
    return reason === undefined ? { fate: 'delivered_online' } : { fate: 'rejected', reason };
  }

  let task: Task;
  const answers = new Map<number, RecipientFate>();

  it('answers every rejected uin rejected with the reason, the others as before', async () => {
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist))).status).toBe(200);
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'some rejected' },
    });
    expect(created.status).toBe(201);
    task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');

    await inFlight(Array.from(distinct), 16, async (uin) => {
      const answer = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${task.id}/recipients/${uin}`);
      expect(answer.status).toBe(200);
      answers.set(uin, answer.body);
    });
    const mismatches = Array.from(distinct).filter((uin) => {
      const answer = answers.get(uin)!;
      const expected = expectedOf(uin);
      return answer.fate !== expected.fate || (answer.fate === 'rejected' && answer.reason !== expected.reason);
    });
    expect(mismatches.map((uin) => [uin, expectedOf(uin), answers.get(uin)])).toEqual([]);
    const rejected = [...answers.values()].filter((a) => a.fate === 'rejected');
    expect(rejected.length).toBeGreaterThan(50);
    expect(new Set(rejected.map((a) => a.fate === 'rejected' && a.reason))).toEqual(
      new Set(['unregistered', 'bad.token']),
    );
    // As a delivered one: when its batch was confirmed, and by which executor.
    expect(rejected[0]).toMatchObject({ at: expect.any(Number), executor: expect.stringMatching(/^executor-/) });
  });

  it('writes the same answers in the report, and the funnel and the task count its rows', async () => {
    const response = await fetch(`${cluster.url}/api/v1/tasks/${task.id}/report`, {
      headers: { ...authHeaders(), accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    const rows = (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecipientFate & { taskId: number });
    expect(rows.map((r) => r.uin)).toEqual(Array.from(distinct));
    // The per-recipient answer carries the task's id too: each row is that answer, whole.
    for (const row of rows) expect(row).toEqual({ ...answers.get(row.uin), taskId: task.id });

    const csv = await (await fetch(`${cluster.url}/api/v1/tasks/${task.id}/report`, { headers: authHeaders() })).text();
    const csvRejected = csv.split('\n').filter((line) => line.split(',')[2] === 'rejected');
    expect(csvRejected).toHaveLength(rows.filter((r) => r.fate === 'rejected').length);
    expect(csvRejected[0]).toMatch(/^\d+,\d+,rejected,(unregistered|bad\.token),20\d\d-.*Z,executor-\d,$/);

    const byReason: Record<string, number> = {};
    const byFate: Record<string, number> = {};
    for (const row of rows) {
      byFate[row.fate] = (byFate[row.fate] ?? 0) + 1;
      if (row.fate === 'rejected') byReason[row.reason] = (byReason[row.reason] ?? 0) + 1;
    }
    // The task's own counts, kept by the scheduler from the executors' reports: the same recipients.
    const { body: done } = await call<Task>(cluster, 'GET', `/api/v1/tasks/${task.id}`);
    expect(done.report.delivered).toBe(byFate.delivered_online);
    expect(done.report.offline).toBe(byFate.queued_offline);
    expect(done.report.deadLetters).toEqual(byReason);

    const { body: funnel } = await call<{ stages: FunnelStage[] }>(cluster, 'GET', `/api/v1/tasks/${task.id}/funnel`);
    const stage = (name: string) => funnel.stages.find((s) => s.stage === name && s.of === 'kept');
    expect(stage('delivered_online')?.count).toBe(byFate.delivered_online);
    expect(stage('rejected')).toEqual({ stage: 'rejected', of: 'kept', count: byFate.rejected, byReason });
    expect(stage('queued_offline')?.count).toBe(byFate.queued_offline);
    const kept = funnel.stages.find((s) => s.stage === 'kept')!.count as number;
    const parts = funnel.stages.filter((s) => s.of === 'kept').reduce((sum, s) => sum + (s.count as number), 0);
    expect(parts).toBe(kept);
  });
});
