import type { Campaign } from '@herald/core/campaign';
import { campaignTaskKey } from '@herald/core/campaign';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_CAMPAIGN_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { call, listBytes, sinkUins, upload, waitForEnd } from './helpers';

/**
 * A daily campaign's no-resend scope end to end (docs/campaigns.md,
 * "No-resend scope"), on an embedded cluster whose every tier reads one
 * injected clock: the test moves it to each day's 09:00 and the controller
 * fires that day's task. Scope firing reaches the whole list every day;
 * scope content (the default) reaches it once, and its history then says in
 * words why a firing reached nobody; a 2-day window sends every other day.
 */
describe('a daily campaign and its no-resend scope (embedded, injected clock)', () => {
  const H = 3_600_000;
  const DAY0 = Date.UTC(2025, 5, 2); // Monday 2 June 2025, 00:00 UTC
  const clock = {
    at: DAY0 + 8 * H,
    now() {
      return this.at;
    },
  };
  const uins = [3, 5, 8, 13, 21];
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-campaign-no-resend-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 16,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 50 },
        campaigns: { ...TEST_CAMPAIGN_OPTIONS, scanIntervalMs: 100 },
      },
      { clock },
    );
    await cluster.login(uins);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function dailyCampaign(body: string, noResend?: unknown): Promise<Campaign> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));
    const created = await call<Campaign>(cluster, 'POST', '/api/v1/campaigns', {
      accountId: 'acme',
      name: body,
      cron: '0 9 * * *',
      timeZone: 'UTC',
      template: { listId: list.body.id, content: { body }, ...(noResend === undefined ? {} : { noResend }) },
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  /** Moves the clock to a day's 09:00:01 and waits for each campaign's task of that day to end. */
  async function fireDay(day: number, campaigns: Campaign[]): Promise<Task[]> {
    const scheduledAt = DAY0 + day * 24 * H + 9 * H;
    clock.at = scheduledAt + 1000;
    const ended: Task[] = [];
    for (const campaign of campaigns) {
      let task: Task | undefined;
      await waitFor(
        async () => {
          task = await cluster.store.getTaskByIdempotencyKey(campaignTaskKey(campaign.id, scheduledAt));
          return task !== undefined;
        },
        { timeoutMs: 20_000, message: `campaign ${campaign.name} did not fire on day ${day}` },
      );
      ended.push(await waitForEnd(cluster, task!.id));
    }
    return ended;
  }

  const reached = (task: Task) => task.report.delivered + task.report.offline;

  it('scope firing reaches everyone every day; scope content once; a 2-day window every other day', async () => {
    const digest = await dailyCampaign('Daily digest', { scope: 'firing' });
    const fixed = await dailyCampaign('Same every day');
    const windowed = await dailyCampaign('At most every two days', { scope: 'window', window: '2d' });
    expect(digest.template.noResend).toEqual({ scope: 'firing' });
    expect(fixed.template).not.toHaveProperty('noResend');

    const reach: number[][] = [];
    for (let day = 0; day < 4; day++) {
      const tasks = await fireDay(day, [digest, fixed, windowed]);
      for (const task of tasks) expect(task.state).toBe('COMPLETED');
      reach.push(tasks.map(reached));
      const [digestTask] = tasks;
      expect([...(await sinkUins(cluster, digestTask!.id))]).toEqual(uins);
    }
    // Per day: [digest, fixed, windowed].
    expect(reach).toEqual([
      [5, 5, 5],
      [5, 0, 0],
      [5, 0, 5],
      [5, 0, 0],
    ]);

    // The fixed campaign's later firings say why they reached nobody; the digest's say nothing.
    const history = await call<{
      firings: { scheduledAt: number; outcome: string; note: { code: string; message: string } | null }[];
    }>(cluster, 'GET', `/api/v1/campaigns/${fixed.id}/firings`);
    expect(history.body.firings.map((f) => f.note?.code ?? null)).toEqual([
      'reached_nobody_already_sent',
      'reached_nobody_already_sent',
      'reached_nobody_already_sent',
      null,
    ]);
    expect(history.body.firings[0]!.note!.message).toMatch(
      /^Reached nobody: all 5 recipients already got this content/,
    );
    const digestHistory = await call<{ firings: { note: unknown }[] }>(
      cluster,
      'GET',
      `/api/v1/campaigns/${digest.id}/firings`,
    );
    expect(digestHistory.body.firings.map((f) => f.note)).toEqual([null, null, null, null]);
  });
});
