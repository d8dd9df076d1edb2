import type { Task } from '@herald/core/task';
import { dayOf, userBudget, userDayOf } from '@herald/core/frequency';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, sinkUins, upload, waitForEnd } from './helpers';

/**
 * Frequency windows on each user's own local day, end to end
 * (docs/frequency.md, "Time zones"), on an embedded cluster whose every
 * tier reads one injected clock. At 15:30 UTC on 1 June 2026 it is 00:30 on
 * the 2nd in Tokyo (a new day: almost no slot released yet), 11:30 in New
 * York and 15:30 for the users without a tz (UTC, frequency.utcOffsetMinutes 0).
 */
describe("frequency on each user's local day, end to end", () => {
  const NOW = Date.UTC(2026, 5, 1, 15, 30);
  const clock = { now: () => NOW };
  const uins = Uint32Array.from({ length: 600 }, (_, i) => i + 1);
  const zoneOf = (uin: number) => ['Asia/Tokyo', 'America/New_York', undefined][uin % 3];
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-frequency-zones-e2e-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 20,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 20 },
        frequency: { enabled: true },
        executor: { ids: ['executor-1'] },
      },
      { clock },
    );
    for (const uin of uins) cluster.online.setOnline(uin, true);
    await cluster.attributes.putUsers(
      [...uins].map((uin) => (zoneOf(uin) === undefined ? { uin } : { uin, tz: zoneOf(uin)! })),
    );
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it("filters each user on their own day's released slots and counts the delivery on that day", async () => {
    const policy = cluster.config.frequency.policy;
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(uins));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'one a day' },
    });
    expect(created.status).toBe(201);
    const done = await waitForEnd(cluster, created.body.id);
    // Exactly the users with a slot released on their own clock: Tokyo's few whose 00-06 slot came by 00:30.
    const expected = [...uins].filter((uin) => userBudget(policy, zoneOf(uin), uin, 0, NOW) > 0);
    const tokyo = [...uins].filter((uin) => zoneOf(uin) === 'Asia/Tokyo');
    expect(tokyo.filter((uin) => expected.includes(uin)).length).toBeLessThan(tokyo.length / 4);
    expect(expected.length).toBeGreaterThan((2 * uins.length) / 3);
    expect(done.report.removed.over_frequency).toBe(uins.length - expected.length);
    expect([...(await sinkUins(cluster, created.body.id))]).toEqual(expected);
    // Counted on each user's own day: Tokyo's on the 2nd, the others on the 1st.
    const counted = async (users: number[], day: number) =>
      [...(await cluster.frequency!.used(Uint32Array.from(users), day))].every((n) => n === 1);
    const tokyoSent = expected.filter((uin) => zoneOf(uin) === 'Asia/Tokyo');
    const othersSent = expected.filter((uin) => zoneOf(uin) !== 'Asia/Tokyo');
    expect(tokyoSent.length).toBeGreaterThan(0);
    expect(userDayOf(policy, 'Asia/Tokyo', NOW)).toBe(dayOf(policy, NOW) + 1);
    expect(await counted(tokyoSent, dayOf(policy, NOW) + 1)).toBe(true);
    expect(await counted(othersSent, dayOf(policy, NOW))).toBe(true);
    expect([...(await cluster.frequency!.used(Uint32Array.from(tokyoSent), dayOf(policy, NOW)))]).toEqual(
      tokyoSent.map(() => 0),
    );
  }, 120_000);
});
