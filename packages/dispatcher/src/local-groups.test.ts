import { join } from 'node:path';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { localInstant, type DeliverAt } from '@herald/core/time';
import { inRunOrder } from '@herald/audience';
import { groupByLocalTime } from './local-groups';

const DAY = Date.UTC(2026, 9, 25);
const deliverAt: DeliverAt = { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'UTC' };
const ZONES = ['Asia/Tokyo', 'Europe/Berlin', 'America/New_York', '+05:30'];

describe('groupByLocalTime', () => {
  let dir: TempDir;
  let index: LevelAttributeIndex;
  /** Uins spread over ~300 chunks of 2^16 (past one read's 64), every 7th without a zone. */
  const uins = Uint32Array.from({ length: 3000 }, (_, i) => i * 6553 + 17);
  const zoneOf = (uin: number, i: number) => (i % 7 === 6 ? 'UTC' : ZONES[uin % ZONES.length]!);

  beforeAll(async () => {
    dir = await makeTempDir('herald-local-groups-');
    index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
    const users = [...uins].map((uin, i) => (i % 7 === 6 ? { uin } : { uin, tz: ZONES[uin % ZONES.length]! }));
    // Users outside the audience hold zones too: they must change nothing.
    users.push({ uin: 5, tz: 'Pacific/Kiritimati' }, { uin: 2 ** 24 + 3, tz: 'Asia/Tokyo' });
    await index.putUsers(users);
  });

  afterAll(async () => {
    await index?.close();
    await dir?.remove();
  });

  it('puts every recipient in its zone group, groups by release instant, each sorted by uin', async () => {
    const plannedAt = DAY - 3 * 3_600_000; // 21:00 UTC the day before: every zone's 09:00 on the 25th is ahead
    const { list, groups } = await groupByLocalTime(
      uins,
      { deliverAt, expiresAt: DAY + 2 * 86_400_000 },
      index,
      plannedAt,
    );
    const order = inRunOrder(list);
    expect(order.length).toBe(uins.length);
    expect([...order].sort((a, b) => a - b)).toEqual([...uins]);
    expect(groups.map((g) => g.releaseAt)).toEqual([...groups.map((g) => g.releaseAt)].sort((a, b) => a - b));
    const expectedOf = new Map([...uins].map((uin, i) => [uin, zoneOf(uin, i)]));
    for (const group of groups) {
      const members = order.subarray(group.start, group.end);
      for (let i = 1; i < members.length; i++) expect(members[i]!).toBeGreaterThan(members[i - 1]!);
      const zones = new Set([...members].map((uin) => expectedOf.get(uin)!));
      // One zone per group here (these zones release at distinct instants), at its 09:00 on the 25th.
      expect(zones.size).toBe(1);
      const [zone] = [...zones];
      expect(group.releaseAt).toBe(localInstant(zone!, DAY, 9 * 60));
      expect(group.skipped).toBe(false);
    }
    expect(groups).toHaveLength(ZONES.length + 1);
  });

  it('answers one group at the default zone when no recipient has a zone', async () => {
    const none = Uint32Array.of(2 ** 25, 2 ** 25 + 1);
    const { list, groups } = await groupByLocalTime(none, { deliverAt, expiresAt: DAY * 2 }, index, DAY - 3_600_000);
    const order = inRunOrder(list);
    expect([...order]).toEqual([...none]);
    expect(groups).toEqual([{ offsetMinutes: 0, releaseAt: DAY + 9 * 3_600_000, start: 0, end: 2, skipped: false }]);
  });

  it('keeps a group longer than one block of its run whole and sorted', async () => {
    // 150,000 more recipients without a zone: the default group's run spans three blocks of 65,536.
    const unzoned = Uint32Array.from({ length: 150_000 }, (_, i) => 2 ** 27 + i);
    const audience = Uint32Array.from([...uins, ...unzoned]);
    const { list, groups } = await groupByLocalTime(
      audience,
      { deliverAt, expiresAt: DAY + 2 * 86_400_000 },
      index,
      DAY - 3 * 3_600_000,
    );
    const order = inRunOrder(list);
    const utc = groups.find((g) => g.releaseAt === DAY + 9 * 3_600_000)!;
    const expected = [...uins].filter((uin, i) => zoneOf(uin, i) === 'UTC').concat([...unzoned]);
    expect([...order.subarray(utc.start, utc.end)]).toEqual(expected);
    expect(groups.reduce((sum, g) => sum + g.end - g.start, 0)).toBe(audience.length);
    expect([...order].sort((x, y) => x - y)).toEqual([...audience]);
  });

  it('puts everyone in the default zone when the index holds no zone at all', async () => {
    const empty = await LevelAttributeIndex.open(join(dir.path, 'empty'));
    try {
      const some = Uint32Array.of(3, 2 ** 20, 2 ** 30);
      const { list, groups } = await groupByLocalTime(some, { deliverAt, expiresAt: DAY * 2 }, empty, DAY - 3_600_000);
      const order = inRunOrder(list);
      expect([...order]).toEqual([...some]);
      expect(groups).toEqual([{ offsetMinutes: 0, releaseAt: DAY + 9 * 3_600_000, start: 0, end: 3, skipped: false }]);
    } finally {
      await empty.close();
    }
  });
});
