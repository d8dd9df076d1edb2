import type { FunnelStage, RecipientFate } from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import { FileDeliverySink } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { authHeaders, makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { join } from 'node:path';
import { call, GatedGateway, listBytes, mixedAudience, upload, waitForEnd } from './helpers';

interface Funnel {
  taskId: number;
  state: string;
  stages: FunnelStage[];
}

/**
 * The funnel end to end (docs/recipient-truth.md, "The funnel"): GET
 * /api/v1/tasks/:id/funnel must count what the delivery report's rows add
 * up to by fate, while the task is held before its first confirmed batch,
 * once it completed, and after some offline recipients log in; and the
 * numbers must be the audience's, computed here.
 */
describe('the task funnel, embedded', () => {
  const uinSpaceBits = 20;
  const options = {
    uinSpaceBits,
    http: { port: 0 },
    auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 100_000, burst: 100_000 } },
    tasks: TEST_TASK_OPTIONS,
    dispatcher: { batchSize: 250, unitSize: 1500 },
    executor: { ids: ['executor-1', 'executor-2'] },
    offline: { rangeBits: 12 },
  };
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let gate: GatedGateway;

  // 3,000 distinct uins, about 300 listed twice, 200 blacklisted, 40% online.
  const { distinct, repeated, blacklist, online, list } = mixedAudience(31, 3_000, 3_300, uinSpaceBits);
  const isBlack = new Set(blacklist);
  const isOnline = new Set(online);
  const kept = distinct.filter((uin) => !isBlack.has(uin));
  const offline = kept.filter((uin) => !isOnline.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-funnel-');
    gate = new GatedGateway(new FileDeliverySink(join(dir.path, 'deliveries')));
    cluster = await startEmbeddedCluster({ dataDir: dir.path, ...options }, { gateway: gate });
    for (const uin of online) cluster.online.setOnline(uin, true);
  });
  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  const funnelOf = async (taskId: number) => {
    const answer = await call<Funnel>(cluster, 'GET', `/api/v1/tasks/${taskId}/funnel`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const rowsOf = async (taskId: number): Promise<RecipientFate[]> => {
    const response = await fetch(`${cluster.url}/api/v1/tasks/${taskId}/report`, {
      headers: { ...authHeaders(), accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    return (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecipientFate);
  };

  /** A stage's key: its name, and which link or why where several share it. */
  const keyOf = (stage: Pick<FunnelStage, 'stage' | 'link' | 'why'>) =>
    [stage.stage, stage.link ?? stage.why].filter((part) => part !== undefined).join(':');

  /** The report's rows counted as the funnel's stages (duplicates: the copies the rows say were removed). */
  function countRows(rows: RecipientFate[]): Record<string, number> {
    const counts: Record<string, number> = {};
    const add = (key: string, n = 1) => (counts[key] = (counts[key] ?? 0) + n);
    for (const row of rows) {
      add('removed:duplicate', row.duplicateCopiesRemoved ?? 0);
      if (row.fate === 'removed') add(`removed:${row.link}`);
      if (row.position !== undefined) add('kept');
      if (row.position !== undefined) add(row.fate);
      if (row.fate === 'queued_offline')
        add(row.then.outcome === 'dropped_at_login' ? `dropped_at_login:${row.then.why}` : row.then.outcome);
    }
    add(
      'audience',
      Object.entries(counts).reduce((sum, [key, n]) => sum + (key.startsWith('removed') ? n : 0), 0),
    );
    add('audience', counts.kept ?? 0);
    return counts;
  }

  /** The funnel's known counts, zeros left out as countRows leaves them out. */
  function countStages(funnel: Funnel): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const stage of funnel.stages) {
      expect(stage.count).not.toBe('unknown');
      if (stage.count !== 0) counts[keyOf(stage)] = stage.count as number;
    }
    return counts;
  }

  /** Every level sums to its parent. */
  function expectSums(funnel: Funnel): void {
    const total = (name: string) => funnel.stages.find((s) => s.stage === name)!.count as number;
    const parts = (of: string) =>
      funnel.stages.filter((s) => s.of === of).reduce((sum, s) => sum + (s.count as number), 0);
    expect(parts('audience')).toBe(total('audience'));
    expect(parts('kept')).toBe(total('kept'));
    expect(parts('queued_offline')).toBe(total('queued_offline'));
  }

  async function expectAgrees(taskId: number): Promise<Record<string, number>> {
    const funnel = await funnelOf(taskId);
    expectSums(funnel);
    const counted = countStages(funnel);
    expect(counted).toEqual(countRows(await rowsOf(taskId)));
    return counted;
  }

  let task: Task;

  it('counts what the report rows add up to, held, completed and after logins', async () => {
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(blacklist))).status).toBe(200);
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    gate.hold();
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'hello' },
    });
    expect(created.status).toBe(201);
    // Held at the gateway: no batch confirmed, so every kept recipient is not reached yet.
    await waitFor(() => gate.waiting > 0, { timeoutMs: 30_000 });
    const held = await expectAgrees(created.body.id);
    expect(held).toMatchObject({ kept: kept.length, not_reached: kept.length });
    gate.release();
    task = await waitForEnd(cluster, created.body.id);
    expect(task.state).toBe('COMPLETED');

    const audience = {
      audience: list.length,
      'removed:duplicate': repeated.length,
      'removed:blacklisted': blacklist.length,
      kept: kept.length,
      delivered_online: kept.length - offline.length,
      queued_offline: offline.length,
    };
    expect(await expectAgrees(task.id)).toEqual({ ...audience, waiting: offline.length });

    expect(await cluster.login(offline.subarray(0, 120))).toMatchObject({ delivered: 120 });
    expect(await expectAgrees(task.id)).toEqual({
      ...audience,
      delivered_at_login: 120,
      waiting: offline.length - 120,
    });
  }, 180_000);

  it('lists each filter link in chain order with what is left after it', async () => {
    const removed = (await funnelOf(task.id)).stages.filter((s) => s.stage === 'removed');
    expect(removed.map((s) => [s.link, s.remaining])).toEqual([
      ['duplicate', list.length - repeated.length],
      ['blacklisted', kept.length],
      ['already_sent', kept.length],
      ['not_follower', kept.length],
      ['targeting', kept.length],
      // The A/B holdout's link (docs/rollouts.md): listed for every task, 0 for one without a holdout.
      ['held_out', kept.length],
      ['over_frequency', kept.length],
    ]);
  });

  it('answers the audience of a task not filtered yet, and says the rest is unknown', async () => {
    const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
    const later = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: uploaded.body.id,
      content: { body: 'later' },
      sendAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const funnel = await funnelOf(later.body.id);
    expect(funnel.stages[0]).toEqual({ stage: 'audience', of: null, count: list.length });
    for (const stage of funnel.stages.slice(1))
      expect(stage).toMatchObject({ count: 'unknown', reason: expect.stringMatching(/not filtered yet/) });
  });

  it("answers 404 for a missing task and for another account's operator, 400 for a bad id", async () => {
    expect((await call(cluster, 'GET', '/api/v1/tasks/999999/funnel')).status).toBe(404);
    const bad = await call<{ error: { details: { field: string } } }>(cluster, 'GET', '/api/v1/tasks/x/funnel');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('id');
    const made = await call<{ token: string }>(cluster, 'POST', '/api/v1/tokens', {
      name: 'other ops',
      role: 'operator',
      accounts: ['other'],
    });
    const response = await fetch(`${cluster.url}/api/v1/tasks/${task.id}/funnel`, {
      headers: { authorization: `Bearer ${made.body.token}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
  });
});
