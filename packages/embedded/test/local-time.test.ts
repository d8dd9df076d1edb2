import type { ExecutionUnit, LocalGroup, Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import type { RecipientFate } from '@herald/core/fate';
import {
  authHeaders,
  LOCAL_TIME_ZONES,
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { call, listBytes, sinkUins, upload, waitForEnd, waitForState } from './helpers';

/**
 * Local-time delivery end to end (docs/local-time.md), on an embedded cluster
 * whose every tier reads one injected clock. 24,000 users over 24 zones get
 * a "09:00 local" broadcast planned on 2026-10-24 at 22:00 UTC, the evening
 * before Europe ends daylight saving: each zone's users are delivered when
 * the clock reaches that zone's 09:00 and not before, Berlin's at 08:00 UTC
 * (its winter offset on the 25th, not the summer one of the day it was
 * planned), and the zones already past 09:00 plus the window get the next day's.
 */
describe('local-time delivery, end to end', () => {
  const PLANNED_AT = Date.UTC(2026, 9, 24, 22);
  const clock = {
    at: PLANNED_AT,
    now() {
      return this.at;
    },
  };
  const PER_ZONE = 1000;
  /** Users 1..24,000: user u lives in zone (u - 1) % 24; every 10th has no tz and takes the task's default. */
  const zoneOf = (uin: number) =>
    (uin - 1) % 10 === 9 ? 'Europe/Berlin' : LOCAL_TIME_ZONES[(uin - 1) % LOCAL_TIME_ZONES.length]!;
  const uins = Uint32Array.from({ length: PER_ZONE * LOCAL_TIME_ZONES.length }, (_, i) => i + 1);
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-local-time-e2e-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 20,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 20 },
        dispatcher: { batchSize: 500, unitSize: 400 },
        executor: { ids: ['executor-1', 'executor-2'] },
      },
      { clock },
    );
    for (const uin of uins) cluster.online.setOnline(uin, true);
    for (let at = 0; at < uins.length; at += 5000)
      await cluster.attributes.putUsers(
        [...uins.subarray(at, at + 5000)].map((uin) =>
          (uin - 1) % 10 === 9 ? { uin } : { uin, tz: LOCAL_TIME_ZONES[(uin - 1) % LOCAL_TIME_ZONES.length]! },
        ),
      );
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  async function create(body: Record<string, unknown>) {
    const accountId = typeof body.accountId === 'string' ? body.accountId : 'acme';
    const list = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    return call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId,
      listId: list.body.id,
      content: { body: `good morning ${JSON.stringify(body)}` },
      ttlSeconds: 2 * 86_400,
      ...body,
    });
  }

  /** The wall clock of `zone` at an instant, 'YYYY-MM-DD HH:MM', read by Intl on its own (not through Herald's code). */
  function wallClock(zone: string, at: number): string {
    const fixed = /^([+-])(\d\d):(\d\d)$/.exec(zone);
    if (fixed !== null) {
      const minutes = (Number(fixed[2]) * 60 + Number(fixed[3])) * (fixed[1] === '-' ? -1 : 1);
      return new Date(at + minutes * 60_000).toISOString().slice(0, 16).replace('T', ' ');
    }
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    }).formatToParts(at);
    const part = (type: string) => parts.find((p) => p.type === type)!.value;
    return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
  }

  async function reportRows(id: number, query = ''): Promise<RecipientFate[]> {
    const response = await fetch(`${cluster.url}/api/v1/tasks/${id}/report${query}`, {
      headers: { ...authHeaders(), accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    return (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecipientFate);
  }

  const fieldOf = (body: unknown) => (body as { error: { details: { field: string } } }).error.details.field;
  const unitsIn = (units: ExecutionUnit[], g: LocalGroup) => units.filter((u) => u.start >= g.start && u.end <= g.end);

  /**
   * Moves the clock to each distinct release instant of the groups in turn:
   * just before it, their units are still PENDING; at it, exactly their
   * recipients are delivered, each of whom `check` judges at that instant.
   */
  async function walkReleases(id: number, groups: LocalGroup[], check: (uin: number, instant: number) => void) {
    let deliveredBefore = 0;
    let previous: Uint32Array = new Uint32Array();
    const instants = [...new Set(groups.filter((g) => !g.skipped).map((g) => g.releaseAt))].sort((a, b) => a - b);
    for (const instant of instants) {
      const releasing = groups.filter((g) => g.releaseAt === instant && !g.skipped);
      if (instant - 1 >= clock.at) {
        clock.at = instant - 1;
        const units = await cluster.store.listUnits(id);
        for (const group of releasing) {
          expect(unitsIn(units, group).length).toBeGreaterThan(0);
          expect(unitsIn(units, group).every((u) => u.state === 'PENDING')).toBe(true);
        }
      }
      clock.at = Math.max(clock.at, instant);
      const size = releasing.reduce((n, g) => n + g.end - g.start, 0);
      let sent: Uint32Array = new Uint32Array();
      await waitFor(
        async () => {
          sent = await sinkUins(cluster, id).catch(() => new Uint32Array());
          return sent.length >= deliveredBefore + size;
        },
        { timeoutMs: 60_000, message: `groups released at ${new Date(instant).toISOString()} not delivered` },
      );
      expect(sent.length).toBe(deliveredBefore + size);
      deliveredBefore += size;
      const before = new Set(previous);
      const fresh = [...sent].filter((uin) => !before.has(uin));
      for (const uin of fresh.filter((_, i) => i % 37 === 0)) check(uin, instant);
      previous = sent;
    }
  }

  it('releases a 09:00-local broadcast zone by zone at the right UTC instants, across a DST change', async () => {
    const created = await create({
      deliverAt: { localTime: '09:00', window: '1h', missed: 'next_day', defaultTimeZone: 'Europe/Berlin' },
    });
    expect(created.status).toBe(201);
    expect(created.body.deliverAt).toEqual({
      localTime: '09:00',
      windowMs: 3_600_000,
      missed: 'next_day',
      defaultTimeZone: 'Europe/Berlin',
    });
    const id = created.body.id;
    let planned: Task | undefined;
    await waitFor(
      async () => {
        planned = await cluster.store.getTask(id);
        return planned?.report.localGroups !== undefined && planned.state === 'SENDING';
      },
      { timeoutMs: 60_000, message: 'the task was not planned into groups' },
    );
    const groups = planned!.report.localGroups!;
    // One group per distinct release; about 24 here, never one per user.
    expect(groups.length).toBeGreaterThanOrEqual(20);
    expect(groups.length).toBeLessThanOrEqual(LOCAL_TIME_ZONES.length);
    expect(groups.reduce((n, g) => n + g.end - g.start, 0)).toBe(uins.length);
    // The progress answer lists every group with its instant, size and count; none confirmed yet but Sydney's (due now).
    const progress = await call<{ total: number; localGroups: { releaseAt: number; recipients: number }[] }>(
      cluster,
      'GET',
      `/api/v1/tasks/${id}/progress`,
    );
    expect(progress.body.total).toBe(uins.length);
    expect(progress.body.localGroups.map((g) => [g.releaseAt, g.recipients])).toEqual(
      groups.map((g) => [g.releaseAt, g.end - g.start]),
    );

    // Each zone's 09:00 on the day it is released; Berlin on the 25th is on winter time (+01:00).
    const berlin = groups.find((g) => g.releaseAt === Date.UTC(2026, 9, 25, 8));
    expect(berlin).toMatchObject({ offsetMinutes: 60, skipped: false });
    // Berlin's own users, and every user without a tz (the default zone; none of them is a Berlin user).
    expect(berlin!.end - berlin!.start).toBe(PER_ZONE + uins.length / 10);
    // Kiritimati (+14) was at 12:00 on the 25th when planned, past 09:00 and the window: the next day's 09:00.
    // Honolulu's 09:00 on the 25th is the same instant, under another offset: two groups, one per offset.
    const at19 = groups.filter((g) => g.releaseAt === Date.UTC(2026, 9, 25, 19)).map((g) => g.offsetMinutes);
    expect(at19.sort((a, b) => a - b)).toEqual([-600, 14 * 60]);

    await walkReleases(id, groups, (uin, instant) => expect(wallClock(zoneOf(uin), instant)).toMatch(/ 09:00$/));
    const done = await waitForEnd(cluster, id);
    expect(done.state).toBe('COMPLETED');
    expect(done.report.delivered).toBe(uins.length);
    for (const g of done.report.localGroups!) {
      expect(g).toMatchObject({ released: true, delivered: g.end - g.start, offline: 0 });
      // The instant is 09:00 in every zone of the group: check with a zone whose users are in it.
      expect(LOCAL_TIME_ZONES.some((zone) => wallClock(zone, g.releaseAt).endsWith(' 09:00'))).toBe(true);
    }
    // One recipient's answer names its group: a Tokyo user (uin 4: zone index 3) at Tokyo's 09:00 on the 25th.
    const fate = await call<{ fate: string; localGroup: unknown; position: number }>(
      cluster,
      'GET',
      `/api/v1/tasks/${id}/recipients/4`,
    );
    expect(fate.status).toBe(200);
    expect(fate.body).toMatchObject({
      fate: 'delivered_online',
      localGroup: { releaseAt: Date.UTC(2026, 9, 25, 0), offsetMinutes: 540, skipped: false },
    });
    const tokyo = done.report.localGroups!.find((g) => g.releaseAt === Date.UTC(2026, 9, 25, 0))!;
    expect(fate.body.position).toBeGreaterThanOrEqual(tokyo.start);
    expect(fate.body.position).toBeLessThan(tokyo.end);

    // The delivery report maps every row to its group's run: all delivered, each row's group its zone's 09:00.
    const rows = await reportRows(id);
    expect(rows).toHaveLength(uins.length);
    expect(rows.every((row) => row.fate === 'delivered_online')).toBe(true);
    for (const row of rows.filter((_, i) => i % 1001 === 0)) {
      expect(wallClock(zoneOf(row.uin), row.localGroup!.releaseAt)).toMatch(/ 09:00$/);
      const own = await call<RecipientFate>(cluster, 'GET', `/api/v1/tasks/${id}/recipients/${row.uin}`);
      expect(row.position).toBe(own.body.position);
    }
    // Resumed after a uin, it goes on from the next one, still mapped.
    const resumed = await reportRows(id, `?cursor=${id}-${uins[11_999]}`);
    expect(resumed.map((row) => row.uin)).toEqual([...uins.subarray(12_000)]);
    expect(resumed.every((row) => row.fate === 'delivered_online')).toBe(true);
  }, 180_000);

  it('skips the zones already past their local time with missed: skip, and says so per group', async () => {
    clock.at = Date.UTC(2026, 10, 1, 12); // New York changes to EST at 06:00 UTC this day
    const created = await create({ deliverAt: { localTime: '09:00', window: '30m', missed: 'skip' } });
    expect(created.status).toBe(201);
    const planned = await waitForState(cluster, created.body.id, ['SENDING', 'COMPLETED']);
    const groups = planned.report.localGroups!;
    const skipped = groups.filter((g) => g.skipped);
    expect(skipped.length).toBeGreaterThan(0);
    // New York's 09:00 EST (-05:00) on 1 November is 14:00 UTC: still ahead, not skipped.
    expect(groups.find((g) => g.releaseAt === Date.UTC(2026, 10, 1, 14))).toMatchObject({
      offsetMinutes: -300,
      skipped: false,
    });
    clock.at = Date.UTC(2026, 10, 2, 12);
    const done = await waitForEnd(cluster, created.body.id);
    expect(done.state).toBe('COMPLETED');
    const skippedCount = skipped.reduce((n, g) => n + g.end - g.start, 0);
    expect(done.report.delivered).toBe(uins.length - skippedCount);
    for (const g of done.report.localGroups!.filter((x) => x.skipped)) expect(g.delivered + g.offline).toBe(0);
    // Berlin (uin 13) was at 13:00, past 09:00 and the window: skipped, and its answer says so.
    const fate = await call<{ fate: string; localGroup: { skipped: boolean } }>(
      cluster,
      'GET',
      `/api/v1/tasks/${created.body.id}/recipients/13`,
    );
    expect(fate.body).toMatchObject({ fate: 'not_reached', localGroup: { skipped: true } });
    // The report agrees row by row: exactly the skipped groups' recipients are not reached.
    const rows = await reportRows(created.body.id);
    expect(rows.filter((row) => row.fate === 'not_reached')).toHaveLength(skippedCount);
    expect(rows.filter((row) => row.fate === 'delivered_online')).toHaveLength(uins.length - skippedCount);
  }, 120_000);

  it('holds the zones inside their quiet hours to the end of them, and sends the others at once', async () => {
    clock.at = Date.UTC(2026, 9, 24, 22); // Berlin 00:00 (quiet), New York 18:00 (not), Tokyo 07:00 (quiet)
    const plannedAt = clock.at;
    const created = await create({ quietHours: '22:00-08:00' });
    expect(created.status).toBe(201);
    expect(created.body.quietHours).toEqual({ from: '22:00', to: '08:00' });
    let planned: Task | undefined;
    await waitFor(
      async () => {
        planned = await cluster.store.getTask(created.body.id);
        return planned?.report.localGroups !== undefined && planned.state === 'SENDING';
      },
      { timeoutMs: 60_000, message: 'the task was not planned into groups' },
    );
    const groups = planned!.report.localGroups!;
    // Berlin's quiet hours end at 08:00 on the 25th, on winter time: 07:00 UTC.
    expect(groups.some((g) => g.releaseAt === Date.UTC(2026, 9, 25, 7) && g.offsetMinutes === 60)).toBe(true);
    expect(groups.some((g) => g.releaseAt === plannedAt)).toBe(true);
    const quiet = (minutes: number) => minutes >= 22 * 60 || minutes < 8 * 60;
    const minutesOf = (text: string) => Number(text.slice(11, 13)) * 60 + Number(text.slice(14, 16));
    await walkReleases(created.body.id, groups, (uin, instant) => {
      const zone = (uin - 1) % 10 === 9 ? 'UTC' : LOCAL_TIME_ZONES[(uin - 1) % LOCAL_TIME_ZONES.length]!;
      const local = wallClock(zone, instant);
      // Sent at once only outside the quiet hours; held ones exactly at their end.
      if (instant === plannedAt) expect(quiet(minutesOf(local))).toBe(false);
      else expect(local).toMatch(/ 08:00$/);
    });
    const done = await waitForEnd(cluster, created.body.id);
    expect(done.report.delivered).toBe(uins.length);
  }, 120_000);

  it("fills a task's default zone and quiet hours from its account's local-time defaults", async () => {
    const put = await call<{ defaultTimeZone: string; quietHours: string }>(
      cluster,
      'PUT',
      '/api/v1/accounts/beta/local-time',
      { defaultTimeZone: 'america/new_york', quietHours: '21:00-07:30' },
    );
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      accountId: 'beta',
      defaultTimeZone: 'America/New_York',
      quietHours: '21:00-07:30',
      loginDelivery: 'deliver',
    });
    const bad = await call(cluster, 'PUT', '/api/v1/accounts/beta/local-time', { quietHours: '07:00-07:00' });
    expect(bad.status).toBe(400);
    expect(fieldOf(bad.body)).toBe('quietHours');
    expect((await call(cluster, 'GET', '/api/v1/accounts/beta/local-time')).body).toEqual(put.body);

    const inherits = await create({ accountId: 'beta', deliverAt: { localTime: '09:00' } });
    expect(inherits.status).toBe(201);
    expect(inherits.body.deliverAt!.defaultTimeZone).toBe('America/New_York');
    expect(inherits.body.quietHours).toEqual({ from: '21:00', to: '07:30' });
    // A task's own choices win over the account's.
    const own = await create({
      accountId: 'beta',
      deliverAt: { localTime: '09:00', defaultTimeZone: 'Asia/Tokyo' },
      quietHours: '23:00-06:00',
    });
    expect(own.body.deliverAt!.defaultTimeZone).toBe('Asia/Tokyo');
    expect(own.body.quietHours).toEqual({ from: '23:00', to: '06:00' });
    // Cleared: a PUT without fields sets none.
    expect((await call(cluster, 'PUT', '/api/v1/accounts/beta/local-time', {})).body).toEqual({
      accountId: 'beta',
      defaultTimeZone: null,
      quietHours: null,
      loginDelivery: 'deliver',
    });
    for (const id of [inherits.body.id, own.body.id])
      expect((await call(cluster, 'POST', `/api/v1/tasks/${id}/cancel`)).status).toBeLessThan(300);
  });

  it('refuses quiet hours covering the whole day with 400 naming quietHours', async () => {
    const answer = await create({ quietHours: '08:00-08:00' });
    expect(answer.status).toBe(400);
    expect(fieldOf(answer.body)).toBe('quietHours');
  });

  it.each([
    [{ localTime: '9:00' }, 'deliverAt.localTime'],
    [{ localTime: '24:00' }, 'deliverAt.localTime'],
    [{ localTime: '09:00', window: '13h' }, 'deliverAt.window'],
    [{ localTime: '09:00', missed: 'later' }, 'deliverAt.missed'],
    [{ localTime: '09:00', defaultTimeZone: 'Mars/Olympus' }, 'deliverAt.defaultTimeZone'],
    [{ localTime: '09:00', defaultTimeZone: '+15:00' }, 'deliverAt.defaultTimeZone'],
    [{ localTime: '09:00', at: 'x' }, 'deliverAt.at'],
  ])('refuses deliverAt %j with 400 naming %s, creating nothing', async (deliverAt, field) => {
    const before = (await cluster.store.listTasks({ limit: 1000 })).tasks.length;
    const answer = await create({ deliverAt });
    expect(answer.status).toBe(400);
    expect(fieldOf(answer.body)).toBe(field);
    expect((await cluster.store.listTasks({ limit: 1000 })).tasks.length).toBe(before);
  });

  it('refuses a window longer than the task lives', async () => {
    const answer = await create({ deliverAt: { localTime: '09:00', window: '2h' }, ttlSeconds: 3600 });
    expect(answer.status).toBe(400);
    expect(fieldOf(answer.body)).toBe('deliverAt.window');
  });

  it('refuses a user tz that is no zone, naming the field', async () => {
    await expect(cluster.attributes.putUsers([{ uin: 1, tz: 'Europe/Atlantis' }])).rejects.toMatchObject({
      details: { field: 'tz' },
    });
  });
});
