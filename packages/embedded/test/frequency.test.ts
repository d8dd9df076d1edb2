import { budget, dayOf } from '@herald/core/frequency';
import { removedTotal, type Task } from '@herald/core/task';
import { subtractSorted } from '@herald/core/uins';
import { syntheticAudience } from '@herald/audience';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, expectedSplit, listBytes, offlineUins, sinkUins, upload, waitForEnd, waitForState } from './helpers';

/**
 * Frequency control end to end (docs/frequency.md), on an embedded cluster
 * whose every tier reads one injected clock: the dispatcher's filter, the
 * executors' counting and login delivery all share one LevelFrequencyCounter.
 */
describe('frequency control, end to end', () => {
  const H = 3_600_000;
  const MIDNIGHT = Date.UTC(2024, 2, 10);
  const clock = {
    at: MIDNIGHT + 13.5 * H,
    now() {
      return this.at;
    },
  };
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 20;
  const audience = syntheticAudience({ recipients: 5000, onlineFraction: 0.4, uinLimit: 2 ** uinSpaceBits, seed: 23 });
  const expected = expectedSplit(audience);
  const policy = () => cluster.config.frequency.policy;
  const online = new Set(audience.online);

  beforeAll(async () => {
    dir = await makeTempDir('herald-frequency-e2e-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 50 },
        dispatcher: { batchSize: 500, unitSize: 2000 },
        executor: { ids: ['executor-1', 'executor-2'] },
        offline: { rangeBits: 12 },
        frequency: { enabled: true },
      },
      { clock },
    );
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    expect((await upload(cluster, '/api/v1/blacklists/global', listBytes(audience.blacklist))).status).toBe(200);
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function broadcast(body: string, sendAt?: number): Promise<number> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body },
      ...(sendAt === undefined ? {} : { sendAt: new Date(sendAt).toISOString() }),
    });
    expect(created.status).toBe(201);
    return created.body.id;
  }
  const usedToday = async (uins: Uint32Array) => cluster.frequency!.used(uins, dayOf(policy(), clock.now()));

  it('filters users who already got their broadcasts today as over_frequency, and the report reconciles', async () => {
    // Earlier today six broadcasts reached every 5th kept user, two reached the next ones.
    const six = expected.kept.filter((_, i) => i % 5 === 0);
    const two = expected.kept.filter((_, i) => i % 5 === 1);
    const day = dayOf(policy(), clock.now());
    for (let t = 1; t <= 6; t++)
      await cluster.frequency!.consume([
        { taskId: 1_000_000 + t, day, uins: t <= 2 ? expected.kept.filter((_, i) => i % 5 <= 1) : six },
      ]);
    // Blacklisted users with six: removed as blacklisted, never counted again as over frequency.
    await cluster.frequency!.consume(
      [1, 2, 3, 4, 5, 6].map((t) => ({ taskId: 1_000_000 + t, day, uins: audience.blacklist })),
    );

    // 13:30: two slots released for everyone, the 12-15 one for about half.
    const over = [...six, ...two.filter((uin) => budget(policy(), uin, 2, clock.now()) === 0)];
    expect(over.length).toBeGreaterThan(six.length);
    expect(over.length).toBeLessThan(six.length + two.length);
    const kept = subtractSorted(expected.kept.slice(), Uint32Array.from(over).sort());

    const task = await waitForEnd(cluster, await broadcast('noon news'));
    expect(task.state).toBe('COMPLETED');
    const r = task.report;
    expect(r.removed.duplicate).toBe(audience.list.length - audience.distinct.length);
    expect(r.removed.blacklisted).toBe(audience.distinct.length - expected.kept.length);
    expect(r.removed.already_sent).toBe(0);
    expect(r.removed.over_frequency).toBe(over.length);
    expect(r.kept).toBe(kept.length);
    expect(r.total).toBe(r.kept + removedTotal(r));
    expect(r.delivered + r.offline).toBe(r.kept);

    const keptOnline = kept.filter((uin) => online.has(uin));
    const keptOffline = kept.filter((uin) => !online.has(uin));
    expect(await sinkUins(cluster, task.id)).toEqual(keptOnline);
    expect(await offlineUins(cluster, task.id)).toEqual(keptOffline);
    // The executors counted what they delivered; the offline part counts at login.
    const [sixSet, twoSet] = [new Set(six), new Set(two)];
    const before = (uin: number) => (sixSet.has(uin) ? 6 : twoSet.has(uin) ? 2 : 0);
    expect([...(await usedToday(keptOnline))]).toEqual([...keptOnline].map((uin) => before(uin) + 1));
    expect([...(await usedToday(keptOffline))]).toEqual([...keptOffline].map(before));
    expect([...(await usedToday(Uint32Array.from(six)))].every((n) => n === 6)).toBe(true);

    // At login the offline users get it (a slot is left for each: the filter just said so) and it counts.
    const users = keptOffline.subarray(0, 20);
    expect(await cluster.login(users)).toEqual({ delivered: 20, expired: 0, overFrequency: 0, held: 0 });
    expect([...(await usedToday(users))]).toEqual([...users].map((uin) => before(uin) + 1));
  });

  it("the seed's case: a task created at 23:45 for 00:00 tomorrow takes only the slots released by then, not tomorrow's budget", async () => {
    const candidates = expected.kept; // a new content: nothing already sent
    clock.at = MIDNIGHT + 23.75 * H;
    const tomorrow = MIDNIGHT + 24 * H;
    const early = await broadcast('midnight grab', tomorrow);
    await waitForState(cluster, early, ['SCHEDULED']);

    clock.at = tomorrow;
    const grabbed = await waitForEnd(cluster, early);
    expect(grabbed.state).toBe('COMPLETED');
    // Only users whose first slot of the new day is released at 00:00:00.000 exactly: practically none.
    const releasedAtMidnight = candidates.filter((uin) => budget(policy(), uin, 0, tomorrow) > 0);
    expect(grabbed.report.kept).toBe(releasedAtMidnight.length);
    expect(grabbed.report.kept).toBeLessThan(candidates.length * 0.01);
    expect(grabbed.report.removed.over_frequency).toBe(candidates.length - releasedAtMidnight.length);
    expect(grabbed.report.total).toBe(grabbed.report.kept + removedTotal(grabbed.report));

    // At the end of the first competition window every user's first slot is released, and nearly all
    // of them are still unused: a task sending then reaches them.
    clock.at = tomorrow + 6 * H - 1;
    const later = await waitForEnd(cluster, await broadcast('morning news'));
    expect(later.state).toBe('COMPLETED');
    const reachedEarly = releasedAtMidnight.filter((uin) => online.has(uin));
    expect(later.report.kept).toBe(candidates.length - reachedEarly.length);
    expect(later.report.removed.over_frequency).toBe(reachedEarly.length);
  });
});
