/**
 * A manual run (an operator's "run now", POST /api/v1/campaigns/:id/run)
 * beside the controller's cron pass: both fire through core's fireCampaign,
 * so a run takes room in the account's quotas the pass then finds taken, a
 * refused run is recorded missed and manual, and neither disturbs the
 * other's bookkeeping: the pass fires its scheduled times as if no run had
 * happened, and never mistakes a run for one of them.
 */
import { compileConfig } from '@herald/core/config';
import { fireCampaign, manualRunTime, type NewCampaign } from '@herald/core/campaign';
import { noopLogger, type Counter } from '@herald/core/ports';
import { LevelAccountStore, LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { runCampaignPass, type CampaignPassDeps } from './campaign-pass';

const at = (iso: string) => Date.parse(iso);
const OPTIONS = { misfireGraceMs: 60_000, defaultTtlMs: 3_600_000 };
const RUN = { defaultTtlMs: OPTIONS.defaultTtlMs, manual: true };
const every10min: NewCampaign = {
  accountId: 'acme',
  name: 'Every ten minutes',
  cron: '*/10 * * * *',
  timeZone: 'UTC',
  template: { listId: 'l_1', content: { body: 'Tick' }, priority: 'normal' },
};

describe('a manual run beside the cron pass', () => {
  let dir: TempDir;
  let tasks: LevelTaskStore;
  let campaigns: LevelCampaignStore;
  let accounts: LevelAccountStore;
  const firings: Counter = { inc: () => undefined };
  const created = at('2025-01-01T10:05:00Z');

  beforeEach(async () => {
    dir = await makeTempDir('herald-campaign-run-now-');
    tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
    campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
    accounts = await LevelAccountStore.open(`${dir.path}/accounts`);
    await tasks.putList({
      id: 'l_1',
      accountId: 'acme',
      count: 50,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 400,
      createdAt: created,
    });
  });

  afterEach(async () => {
    await accounts.close();
    await campaigns.close();
    await tasks.close();
    await dir.remove();
  });

  const deps = (dailyBroadcasts: number, submitted: number[] = []): CampaignPassDeps => ({
    campaigns,
    store: tasks,
    logger: noopLogger,
    firings,
    isLeader: () => true,
    submit: async (taskId) => void submitted.push(taskId),
    quota: { accounts, policy: compileConfig({ accounts: { defaultLimits: { dailyBroadcasts } } }).accounts },
  });

  it('leaves the schedule to the pass: the next cron time fires as planned, the run stays a manual record', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    const submitted: number[] = [];
    const now = at('2025-01-01T10:07:30.500Z');
    const run = await fireCampaign(deps(10, submitted), c, manualRunTime(now), now, RUN);
    expect(run).toMatchObject({ outcome: 'fired', manual: true, scheduledAt: now });
    expect(submitted).toEqual([run.taskId]);
    expect(await runCampaignPass(deps(10, submitted), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({
      fired: 1,
      missed: 0,
    });
    const history = (await campaigns.listFirings(c.id)).firings;
    expect(history.map((f) => [f.scheduledAt, f.outcome, f.manual ?? false])).toEqual([
      [at('2025-01-01T10:10:00Z'), 'fired', false],
      [now, 'fired', true],
    ]);
    expect(new Set(history.map((f) => f.taskId)).size).toBe(2);
    expect((await campaigns.getCampaign(c.id))!.lastScheduledAt).toBe(at('2025-01-01T10:10:00Z'));
  });

  it('runs a disabled campaign, which the pass never fires', async () => {
    const c = await campaigns.createCampaign({ ...every10min, enabled: false }, created);
    const now = at('2025-01-01T10:07:00Z');
    expect(await fireCampaign(deps(10), c, manualRunTime(now), now, RUN)).toMatchObject({ outcome: 'fired' });
    expect(await runCampaignPass(deps(10), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 0 });
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
  });

  it("takes the account's quota like a firing: over it, the run is missed and manual; the pass then finds the room taken", async () => {
    const c = await campaigns.createCampaign(every10min, created);
    const first = at('2025-01-01T10:06:00.100Z');
    expect(await fireCampaign(deps(1), c, first, first, RUN)).toMatchObject({ outcome: 'fired' });
    const second = at('2025-01-01T10:07:00.100Z');
    expect(await fireCampaign(deps(1), c, second, second, RUN)).toEqual({
      campaignId: c.id,
      scheduledAt: second,
      outcome: 'missed',
      taskId: null,
      reason: 'quota_exceeded:dailyBroadcasts',
      at: second,
      manual: true,
    });
    expect(await runCampaignPass(deps(1), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 0, missed: 1 });
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
  });
});
