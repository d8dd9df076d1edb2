/**
 * Campaign firings under the B-side quotas (docs/account-quotas.md): a firing
 * is its account's broadcast, so it takes room like an API task; refused, it
 * is recorded missed with the limit as reason and no task is created. A
 * controller that dies between reserving and creating is answered by the key
 * on the next pass, never counted twice; a creation that fails gives the
 * room back.
 */
import { accountDayOf } from '@herald/core/account-quota';
import { compileConfig } from '@herald/core/config';
import { noopLogger, type AccountStore, type Counter, type TaskStore } from '@herald/core/ports';
import type { NewCampaign } from '@herald/core/campaign';
import { LevelAccountStore, LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { runCampaignPass, type CampaignPassDeps } from './campaign-pass';

const at = (iso: string) => Date.parse(iso);
const OPTIONS = { misfireGraceMs: 60_000, defaultTtlMs: 3_600_000 };
const every10min: NewCampaign = {
  accountId: 'acme',
  name: 'Every ten minutes',
  cron: '*/10 * * * *',
  timeZone: 'UTC',
  template: { listId: 'l_1', content: { body: 'Tick' }, priority: 'normal' },
};
const policy = compileConfig({ accounts: { defaultLimits: { dailyBroadcasts: 1 } } }).accounts;

/** `target` with `method` throwing: after doing its work (`after`), or instead of it. */
function failing<T extends object>(target: T, method: keyof T & string, when: 'after' | 'instead'): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(object);
      return async (...args: unknown[]) => {
        if (when === 'after') await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        throw new Error(`${method} failed`);
      };
    },
  });
}

describe('campaign firings under account quotas', () => {
  let dir: TempDir;
  let tasks: LevelTaskStore;
  let campaigns: LevelCampaignStore;
  let accounts: LevelAccountStore;
  const firings: Counter = { inc: () => undefined };
  const created = at('2025-01-01T10:05:00Z');

  beforeEach(async () => {
    dir = await makeTempDir('herald-campaign-quota-');
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

  const deps = (overrides: { store?: TaskStore; accounts?: AccountStore } = {}): CampaignPassDeps => ({
    campaigns,
    store: overrides.store ?? tasks,
    logger: noopLogger,
    firings,
    isLeader: () => true,
    quota: { accounts: overrides.accounts ?? accounts, policy },
  });
  const usage = (iso: string) => accounts.usage('acme', accountDayOf(0, at(iso)), at(iso));

  it('fires within the quota, then records the firing over it as missed with the limit, creating no task', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:02Z'))).toMatchObject({ fired: 1, missed: 0 });
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:20:02Z'))).toMatchObject({ fired: 0, missed: 1 });
    expect((await campaigns.listFirings(c.id)).firings.map((f) => [f.outcome, f.reason])).toEqual([
      ['missed', 'quota_exceeded:dailyBroadcasts'],
      ['fired', null],
    ]);
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
    expect(await usage('2025-01-01T10:20:02Z')).toMatchObject({ broadcasts: 1, recipients: 50 });
    // Quotas are by the send time's day: the next day's first firing goes out.
    await campaigns.updateCampaign(c.id, { cron: '0 0 * * *' }, at('2025-01-01T10:21:00Z'));
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-02T00:00:01Z'))).toMatchObject({ fired: 1 });
  });

  it('counts a firing once when the controller dies between reserving and creating its task', async () => {
    const c = await campaigns.createCampaign(every10min, created);
    // The reservation is stored, then the controller "dies": no task, nothing recorded.
    expect(
      await runCampaignPass(
        deps({ accounts: failing(accounts, 'reserve', 'after') }),
        OPTIONS,
        at('2025-01-01T10:10:02Z'),
      ),
    ).toMatchObject({ fired: 0, missed: 0 });
    expect((await tasks.listTasks()).tasks).toHaveLength(0);
    // The next pass (this or another controller) is answered by the key: fired, counted once, within a quota of 1.
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:30Z'))).toMatchObject({ fired: 1, missed: 0 });
    expect((await campaigns.listFirings(c.id)).firings).toMatchObject([{ outcome: 'fired' }]);
    expect(await usage('2025-01-01T10:10:00Z')).toMatchObject({ broadcasts: 1 });
  });

  it('gives the room back when the task store fails to create the task', async () => {
    await campaigns.createCampaign(every10min, created);
    expect(
      await runCampaignPass(
        deps({ store: failing(tasks, 'createTask', 'instead') }),
        OPTIONS,
        at('2025-01-01T10:10:02Z'),
      ),
    ).toMatchObject({ fired: 0 });
    expect(await usage('2025-01-01T10:10:00Z')).toMatchObject({ broadcasts: 0 });
    expect(await runCampaignPass(deps(), OPTIONS, at('2025-01-01T10:10:30Z'))).toMatchObject({ fired: 1 });
  });
});
