import { compileFrequencyPolicy, dayOf, type FrequencyOptions } from '@herald/core/frequency';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { MySqlFrequencyCounter } from '@herald/store-mysql';
import { authHeaders, makeTempDir, ProcessCluster, type TempDir, waitFor } from '@herald/testing';
import { expectedOutcome } from './outcome';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/**
 * Frequency control on the production profile: two dispatchers and two
 * executors, each its own process, share one counter in MariaDB
 * (MySqlFrequencyCounter). The policy is set so the outcome does not depend
 * on the time of day the test runs at: the day is shifted (utcOffsetMinutes)
 * so that it is about noon locally, and both of a user's two daily slots are
 * released in the first two minutes of the local day.
 */
jest.setTimeout(240_000);

describe('production profile, frequency control', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let counter: MySqlFrequencyCounter;
  const names = uniqueNames('freq');
  const audience = syntheticAudience({ recipients: 6000, onlineFraction: 0.5, uinLimit: 2 ** 24, seed: 31 });
  const { kept } = expectedOutcome(audience);
  const onlineSet = new Set(audience.online);
  const utcMinute = Math.floor((Date.now() % 86_400_000) / 60_000);
  const noonOffset = (((720 - utcMinute) % 1440) + 1440) % 1440;
  const frequency: FrequencyOptions = {
    dailyLimit: 2,
    windows: [
      { fromMinute: 0, toMinute: 1, slots: 1 },
      { fromMinute: 1, toMinute: 2, slots: 1 },
    ],
    utcOffsetMinutes: noonOffset > 840 ? noonOffset - 1440 : noonOffset,
  };
  const policy = compileFrequencyPolicy(frequency);
  // Before the broadcasts, today: every 3rd kept user got both broadcasts, the next one of them.
  const usedBefore = (i: number) => [2, 1, 0][i % 3]!;

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-frequency-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 2, executors: 2, controllers: 1 },
      names,
    );
    await startWithAudience(cluster, audience, { frequency: { enabled: true, ...frequency } });
    counter = await MySqlFrequencyCounter.open({
      url: process.env.HERALD_TEST_MYSQL_URL!,
      database: names.database,
      poolSize: 2,
    });
    const day = dayOf(policy, Date.now());
    for (const taskId of [1_000_001, 1_000_002]) {
      await counter.consume([{ taskId, day, uins: kept.filter((_, i) => usedBefore(i) >= taskId - 1_000_000) }]);
    }
  });

  afterAll(async () => {
    await counter?.close();
    await tearDown(cluster, names, dir);
  });

  async function api<T>(path: string, init: RequestInit): Promise<T> {
    return (await (
      await fetch(cluster.url + path, { ...init, headers: { ...init.headers, ...authHeaders() } })
    ).json()) as T;
  }

  async function broadcast(body: string): Promise<Task> {
    const list = await api<ListMeta>('/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: encodeRecipientList(audience.list),
    });
    const created = await api<Task>('/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body } }),
    });
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = await api<Task>(`/api/v1/tasks/${created.id}`, {});
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      {
        timeoutMs: 120_000,
        intervalMs: 100,
        message: `task did not finish (last: ${JSON.stringify(task?.state)})\n${cluster.logs()}`,
      },
    );
    expect(task!.state).toBe('COMPLETED');
    return task!;
  }

  const countsNow = async (uins: Uint32Array) => [...(await counter.used(uins, dayOf(policy, Date.now())))];

  it('filters over_frequency from the shared counts, counts what every executor delivers, and the next task sees it', async () => {
    await api('/api/v1/blacklists/global', {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: encodeRecipientList(audience.blacklist),
    });
    const first = await broadcast('first');
    const overFirst = kept.filter((_, i) => usedBefore(i) === 2);
    const keptFirst = kept.filter((_, i) => usedBefore(i) < 2);
    expect(first.report.removed.over_frequency).toBe(overFirst.length);
    expect(first.report.kept).toBe(keptFirst.length);
    expect(first.report.total).toBe(
      first.report.kept + Object.values(first.report.removed).reduce((a, b) => a + (b ?? 0), 0),
    );
    expect(first.report.delivered).toBe(keptFirst.filter((uin) => onlineSet.has(uin)).length);

    // Both executors wrote to the one counter: each online kept user is counted once more.
    expect(await countsNow(kept)).toEqual(
      [...kept].map((uin, i) => usedBefore(i) + (usedBefore(i) < 2 && onlineSet.has(uin) ? 1 : 0)),
    );

    // The second task, whichever dispatcher filters it, sees those counts: users who got the first
    // online and had one slot left are now over; the offline ones will count when they log in.
    const second = await broadcast('second');
    const usedNow = (uin: number, i: number) => usedBefore(i) + (usedBefore(i) < 2 && onlineSet.has(uin) ? 1 : 0);
    expect(second.report.removed.over_frequency).toBe(kept.filter((uin, i) => usedNow(uin, i) >= 2).length);
    expect(second.report.kept).toBe(kept.filter((uin, i) => usedNow(uin, i) < 2).length);
  });
});
