import type { CampaignStore } from '@herald/core/ports';
import type { NewCampaign } from '@herald/core/campaign';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { startController, type Controller } from './controller';
import { getTasks } from 'node-cron';
import { nodeCronWakeups } from './cron-wakeups';

const at = (iso: string) => Date.parse(iso);
const SETTINGS = { misfireGraceMs: 60_000, scanIntervalMs: 5000, defaultTtlMs: 3_600_000 };
const noWakeups = () => ({ sync() {}, clear() {} });
const every10min: NewCampaign = {
  accountId: 'acme',
  name: 'Every ten minutes',
  cron: '*/10 * * * *',
  timeZone: 'UTC',
  template: { listId: 'l_1', content: { body: 'Tick' }, priority: 'normal' },
};

/** A campaign store whose recordFiring waits at a gate: the leader has created the task and then stalls (a frozen or cut-off process). */
function gatedRecording(store: CampaignStore) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached = false;
  const gated = new Proxy(store, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as (...a: unknown[]) => unknown;
      if (property !== 'recordFiring') return value.bind(object);
      return async (...args: unknown[]) => {
        reached = true;
        await gate;
        return value.apply(object, args);
      };
    },
  });
  return { store: gated, reached: () => reached, release: () => open() };
}

describe('campaign firing across a controller failover (local coordinator, injected clock)', () => {
  let dir: TempDir;
  let tasks: LevelTaskStore;
  let campaigns: LevelCampaignStore;
  let now = at('2025-01-01T10:09:59Z');
  const clock = { now: () => now };

  beforeEach(async () => {
    dir = await makeTempDir('herald-campaign-failover-');
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
      createdAt: 0,
    });
    now = at('2025-01-01T10:09:59Z');
  });

  afterEach(async () => {
    await campaigns.close();
    await tasks.close();
    await dir.remove();
  });

  it('the leader stops half way through a firing; the next leader completes it: one task per scheduled time, none skipped', async () => {
    const c = await campaigns.createCampaign(every10min, at('2025-01-01T10:05:00Z'));
    const cluster = createLocalCoordinatorCluster();
    const firstCoordinator = await cluster.connect();
    const gated = gatedRecording(campaigns);
    const controllers: Controller[] = [
      await startController(
        { id: 'c1', intervalMs: 10, campaigns: SETTINGS },
        { coordinator: firstCoordinator, store: tasks, campaigns: gated.store, clock, wakeups: noWakeups },
      ),
      await startController(
        { id: 'c2', intervalMs: 10, campaigns: SETTINGS },
        { coordinator: await cluster.connect(), store: tasks, campaigns, clock, wakeups: noWakeups },
      ),
    ];
    expect(controllers.map((x) => x.isLeader())).toEqual([true, false]);

    // 10:10:01: the leader creates the 10:10 task, then stalls before recording it.
    now = at('2025-01-01T10:10:01Z');
    await waitFor(() => gated.reached(), { timeoutMs: 5000, message: 'the leader did not reach the recording step' });
    expect((await tasks.listTasks()).tasks).toHaveLength(1);

    // It loses its session (killed, cut off): the other candidate takes over and finishes the firing.
    await firstCoordinator.close();
    await waitFor(() => controllers[1]!.isLeader(), { timeoutMs: 5000, message: 'no hand-over' });
    now = at('2025-01-01T10:10:03Z');
    await waitFor(async () => (await campaigns.getCampaign(c.id))!.lastScheduledAt === at('2025-01-01T10:10:00Z'), {
      timeoutMs: 5000,
      message: 'the new leader did not complete the 10:10 firing',
    });

    // The stalled one wakes up and carries on: its record and its compare-and-set change nothing.
    gated.release();
    await controllers[0]!.stop();

    // The new leader fires the next time, once.
    now = at('2025-01-01T10:20:00Z');
    await waitFor(async () => (await tasks.listTasks()).tasks.length === 2, {
      timeoutMs: 5000,
      message: 'the 10:20 firing did not happen',
    });
    now = at('2025-01-01T10:20:30Z');
    await controllers[1]!.runOnce();
    await controllers[1]!.stop();

    const all = (await tasks.listTasks()).tasks;
    expect(all.map((t) => t.idempotencyKey)).toEqual([
      `campaign:${c.id}:${at('2025-01-01T10:10:00Z')}`,
      `campaign:${c.id}:${at('2025-01-01T10:20:00Z')}`,
    ]);
    expect((await campaigns.listFirings(c.id)).firings.map((f) => [f.scheduledAt, f.outcome, f.taskId])).toEqual([
      [at('2025-01-01T10:20:00Z'), 'fired', all[1]!.id],
      [at('2025-01-01T10:10:00Z'), 'fired', all[0]!.id],
    ]);
    expect((await campaigns.getCampaign(c.id))!.lastScheduledAt).toBe(at('2025-01-01T10:20:00Z'));
  });

  it('a follower fires nothing; only the leader does', async () => {
    await campaigns.createCampaign(every10min, at('2025-01-01T10:05:00Z'));
    const cluster = createLocalCoordinatorCluster();
    const leader = await startController(
      { id: 'c1', intervalMs: 10, campaigns: SETTINGS },
      { coordinator: await cluster.connect(), store: tasks, campaigns, clock, wakeups: noWakeups },
    );
    const recorded: unknown[] = [];
    const watching = new Proxy(campaigns, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver) as (...a: unknown[]) => unknown;
        return (...args: unknown[]) => {
          recorded.push(property);
          return value.apply(object, args);
        };
      },
    });
    const follower = await startController(
      { id: 'c2', intervalMs: 10, campaigns: SETTINGS },
      { coordinator: await cluster.connect(), store: tasks, campaigns: watching, clock, wakeups: noWakeups },
    );
    now = at('2025-01-01T10:10:01Z');
    await waitFor(async () => (await tasks.listTasks()).tasks.length === 1, {
      timeoutMs: 5000,
      message: 'the leader did not fire',
    });
    await follower.runOnce();
    expect(recorded).toEqual([]);
    await follower.stop();
    await leader.stop();
  });
});

describe('nodeCronWakeups', () => {
  it('wakes at a campaign fire time (node-cron, real time) and stops when cleared', async () => {
    let wakes = 0;
    const wakeups = nodeCronWakeups(() => wakes++, { debug() {}, info() {}, warn() {}, error() {} });
    const campaign = { id: 1, cron: '* * * * * *', timeZone: 'Europe/Berlin' } as Parameters<
      typeof wakeups.sync
    >[0][number];
    wakeups.sync([campaign]);
    await waitFor(() => wakes >= 2, { timeoutMs: 5000, message: 'node-cron did not wake the controller' });
    const named = () => [...getTasks().values()].filter((task) => task.name === 'campaign-1');
    expect(named()).toHaveLength(1);
    // A changed expression replaces the node-cron task; a campaign no longer enabled loses it.
    wakeups.sync([{ ...campaign, cron: '*/2 * * * * *' }]);
    expect(named().map((task) => task.getPattern())).toEqual(['*/2 * * * * *']);
    wakeups.sync([]);
    await waitFor(() => named().length === 0, { timeoutMs: 5000, message: 'the node-cron task was not destroyed' });
    wakeups.clear();
  });
});
