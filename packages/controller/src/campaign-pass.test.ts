import { noopLogger, type CampaignStore, type Counter, type TaskStore } from '@herald/core/ports';
import type { NewCampaign } from '@herald/core/campaign';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { runCampaignPass, type CampaignPassDeps } from './campaign-pass';

const at = (iso: string) => Date.parse(iso);
const GRACE = 60_000;
const OPTIONS = { misfireGraceMs: GRACE, defaultTtlMs: 3_600_000 };
const every10min: NewCampaign = {
  accountId: 'acme',
  name: 'Every ten minutes',
  cron: '*/10 * * * *',
  timeZone: 'UTC',
  template: { listId: 'l_1', content: { body: 'Tick' }, priority: 'normal' },
};

/** `target` with `method` failing right after it has done its work: the controller died before the next step. */
function crashAfter<T extends object>(target: T, method: keyof T & string, calls = 1): T {
  let seen = 0;
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(object);
      return async (...args: unknown[]) => {
        const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        if (++seen === calls) throw new Error(`crash after ${method}`);
        return result;
      };
    },
  });
}

describe('runCampaignPass (misfire policy and crash safety, with the clock passed in)', () => {
  let dir: TempDir;
  let tasks: LevelTaskStore;
  let campaigns: LevelCampaignStore;
  const counted: Record<string, number> = {};
  const firings: Counter = { inc: (labels) => void (counted[labels!.outcome!] = (counted[labels!.outcome!] ?? 0) + 1) };
  const created = at('2025-01-01T10:05:00Z');

  beforeEach(async () => {
    dir = await makeTempDir('herald-campaign-pass-');
    tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
    campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
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
    for (const key of Object.keys(counted)) delete counted[key];
  });

  afterEach(async () => {
    await campaigns.close();
    await tasks.close();
    await dir.remove();
  });

  function deps(
    overrides: Partial<{ store: TaskStore; campaigns: CampaignStore; submit: CampaignPassDeps['submit'] }> = {},
  ): CampaignPassDeps {
    return {
      campaigns: overrides.campaigns ?? campaigns,
      store: overrides.store ?? tasks,
      logger: noopLogger,
      firings,
      submit: overrides.submit,
      isLeader: () => true,
    };
  }

  async function allTasks() {
    return (await tasks.listTasks()).tasks;
  }

  it('fires a due time once: one task with the campaign key, a fired record, the schedule advanced', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    const submitted: number[] = [];
    const result = await runCampaignPass(
      deps({ submit: async (id) => void submitted.push(id) }),
      OPTIONS,
      at('2025-01-01T10:10:02Z'),
    );
    expect(result).toMatchObject({ fired: 1, missed: 0, nextDueAt: at('2025-01-01T10:20:00Z') });
    const [task] = await allTasks();
    expect(task).toMatchObject({
      accountId: 'acme',
      listId: 'l_1',
      content: { body: 'Tick' },
      priority: 'normal',
      sendAt: at('2025-01-01T10:10:00Z'),
      expiresAt: at('2025-01-01T11:10:00Z'),
      listCount: 50,
      idempotencyKey: `campaign:${c.id}:${at('2025-01-01T10:10:00Z')}`,
      state: 'CREATED',
    });
    expect(submitted).toEqual([task!.id]);
    expect((await campaigns.listFirings(c.id)).firings).toEqual([
      {
        campaignId: c.id,
        scheduledAt: at('2025-01-01T10:10:00Z'),
        outcome: 'fired',
        taskId: task!.id,
        reason: null,
        at: at('2025-01-01T10:10:02Z'),
      },
    ]);
    expect((await campaigns.getCampaign(c.id))!.lastScheduledAt).toBe(at('2025-01-01T10:10:00Z'));
    // The same instant again, and a moment later: nothing more.
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 0, missed: 0 });
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:19:59Z'))).toMatchObject({ fired: 0, missed: 0 });
    expect(await allTasks()).toHaveLength(1);
    expect(counted).toEqual({ fired: 1 });
  });

  it("gives each firing's task the template's targeting query; an untargeted template's task has none", async () => {
    await campaigns.createCampaign(
      { ...every10min, template: { ...every10min.template, targeting: 'region:eu AND tag:beta' } },
      created,
    );
    await campaigns.createCampaign({ ...every10min, name: 'Untargeted' }, created);
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 2 });
    expect(new Set((await allTasks()).map((task) => task.targeting))).toEqual(
      new Set(['region:eu AND tag:beta', null]),
    );
  });

  it("gives each firing's task the template's local time and quiet hours, parsed; a bad one is refused naming it", async () => {
    const template = {
      ...every10min.template,
      deliverAt: { localTime: '09:00', window: '90m', missed: 'skip' as const },
      quietHours: '22:00-07:00',
    };
    const c = await campaigns.createCampaign({ ...every10min, template }, created);
    expect(c.template.deliverAt).toEqual({ localTime: '09:00', window: '90m', missed: 'skip' });
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 1 });
    const [task] = await allTasks();
    expect(task!.deliverAt).toEqual({
      localTime: '09:00',
      windowMs: 5_400_000,
      missed: 'skip',
      defaultTimeZone: 'UTC',
    });
    expect(task!.quietHours).toEqual({ from: '22:00', to: '07:00' });
    await expect(
      campaigns.createCampaign(
        { ...every10min, name: 'bad', template: { ...template, deliverAt: { localTime: '25:00' } } },
        created,
      ),
    ).rejects.toMatchObject({ details: { field: 'template.deliverAt.localTime' } });
    await expect(
      campaigns.createCampaign(
        { ...every10min, name: 'bad', template: { ...template, quietHours: '07:00-07:00' } },
        created,
      ),
    ).rejects.toMatchObject({ details: { field: 'template.quietHours' } });
  });

  it('after an outage fires the latest time within the grace and records the earlier ones missed', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    // Down from 10:05 to 10:40:30: 10:10, 10:20 and 10:30 passed unhandled; 10:40 is 30 s late.
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:40:30Z'))).toMatchObject({ fired: 1, missed: 3 });
    const history = (await campaigns.listFirings(c.id)).firings.map((f) => [
      new Date(f.scheduledAt).toISOString(),
      f.outcome,
      f.reason,
    ]);
    expect(history).toEqual([
      ['2025-01-01T10:40:00.000Z', 'fired', null],
      ['2025-01-01T10:30:00.000Z', 'missed', 'late'],
      ['2025-01-01T10:20:00.000Z', 'missed', 'late'],
      ['2025-01-01T10:10:00.000Z', 'missed', 'late'],
    ]);
    expect(await allTasks()).toHaveLength(1);
  });

  it('records the latest time missed too when it is late by the grace or more', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:11:00Z'))).toMatchObject({ fired: 0, missed: 1 });
    expect((await campaigns.listFirings(c.id)).firings[0]).toMatchObject({
      outcome: 'missed',
      reason: 'late',
      taskId: null,
    });
    expect(await allTasks()).toEqual([]);
  });

  it('fires nothing for a disabled campaign, and nothing of the time it was disabled once enabled again', async () => {
    const c = await campaigns.createCampaign({ ...every10min, enabled: false }, created);
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:05Z'))).toMatchObject({
      fired: 0,
      missed: 0,
      nextDueAt: undefined,
    });
    await campaigns.updateCampaign(c.id, { enabled: true }, at('2025-01-01T11:00:30Z'));
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T11:10:01Z'))).toMatchObject({ fired: 1, missed: 0 });
    expect((await campaigns.listFirings(c.id)).firings.map((f) => f.scheduledAt)).toEqual([at('2025-01-01T11:10:00Z')]);
  });

  it('records a firing whose list is gone as missed (list_not_found), creating no task', async () => {
    const c = await campaigns.createCampaign(
      { ...every10min, template: { ...every10min.template, listId: 'gone' } },
      created,
    );
    await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:01Z'));
    expect((await campaigns.listFirings(c.id)).firings[0]).toMatchObject({
      outcome: 'missed',
      reason: 'list_not_found',
    });
    expect(await allTasks()).toEqual([]);
  });

  it('fires at the wall-clock time of the campaign zone', async () => {
    await campaigns.createCampaign({ ...every10min, cron: '0 9 * * *', timeZone: 'America/New_York' }, created);
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T13:59:59Z'))).toMatchObject({
      fired: 0,
      nextDueAt: at('2025-01-01T14:00:00Z'),
    });
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T14:00:00Z'))).toMatchObject({ fired: 1 });
    expect((await allTasks())[0]!.sendAt).toBe(at('2025-01-01T14:00:00Z'));
  });

  it('keeps going past a campaign that fails, and gives the earliest next due time', async () => {
    const broken = await campaigns.createCampaign(every10min, created);
    await campaigns.createCampaign({ ...every10min, cron: '*/5 * * * *' }, created);
    const failing = new Proxy(campaigns, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as (...a: unknown[]) => unknown;
        if (property !== 'recordFiring') return value.bind(object);
        return async (firing: { campaignId: number }) =>
          firing.campaignId === broken.id ? Promise.reject(new Error('disk full')) : value.call(object, firing);
      },
    });
    const result = await runCampaignPass(deps({ campaigns: failing }), OPTIONS, at('2025-01-01T10:10:01Z'));
    expect(result).toMatchObject({ fired: 1, nextDueAt: at('2025-01-01T10:15:00Z') });
  });

  describe('a crash between any two steps neither double-fires nor skips', () => {
    const due = at('2025-01-01T10:10:00Z');
    const firstTry = at('2025-01-01T10:10:05Z');

    it.each([
      ['after the task was created, before it was recorded', 'store', 'createTask', firstTry + 1000],
      ['after the task was created, retried only beyond the grace', 'store', 'createTask', due + GRACE + 30_000],
      ['after the firing was recorded, before the schedule advanced', 'campaigns', 'recordFiring', firstTry + 1000],
      ['after the firing was recorded, retried beyond the grace', 'campaigns', 'recordFiring', due + GRACE + 30_000],
      ['after the schedule advanced', 'campaigns', 'advanceLastScheduled', firstTry + 1000],
    ] as const)('%s', async (_when, which, method, retryAt) => {
      const c = await campaigns.createCampaign(every10min, created);
      const crashing =
        which === 'store'
          ? deps({ store: crashAfter<TaskStore>(tasks, method as keyof TaskStore & string) })
          : deps({ campaigns: crashAfter<CampaignStore>(campaigns, method as keyof CampaignStore & string) });
      // The crash surfaces as that campaign's failure; the pass itself carries on.
      await runCampaignPass(crashing, OPTIONS, firstTry);
      // Another controller (or this one restarted) runs the next pass.
      await runCampaignPass(deps(), OPTIONS, retryAt);
      const all = await allTasks();
      expect(all).toHaveLength(1);
      expect(all[0]!.idempotencyKey).toBe(`campaign:${c.id}:${due}`);
      expect((await campaigns.listFirings(c.id)).firings).toEqual([
        expect.objectContaining({ scheduledAt: due, outcome: 'fired', taskId: all[0]!.id }),
      ]);
      expect((await campaigns.getCampaign(c.id))!.lastScheduledAt).toBe(due);
    });

    it('a crash while recording the misses of an outage: the retry records each once and fires the latest once', async () => {
      const c = await campaigns.createCampaign(every10min, created);
      const now = at('2025-01-01T10:30:10Z');
      await runCampaignPass(deps({ campaigns: crashAfter<CampaignStore>(campaigns, 'recordFiring') }), OPTIONS, now);
      await runCampaignPass(deps(), OPTIONS, now + 1000);
      expect((await campaigns.listFirings(c.id)).firings.map((f) => f.outcome)).toEqual(['fired', 'missed', 'missed']);
      expect(await allTasks()).toHaveLength(1);
    });
  });
});
