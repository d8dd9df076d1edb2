import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { makeTempDir, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, waitFor, type TempDir } from '@herald/testing';
import { call, listBytes, offlineUins, sinkUins, upload, waitForEnd } from './helpers';

/**
 * Quiet hours at the moment of sending and at login (docs/local-time.md,
 * "Quiet hours"), on an embedded cluster whose every tier reads one injected
 * clock. 90 users, all online: 30 in Berlin, 30 in New York, 30 without a tz
 * (UTC). At 21:00 UTC on 1 June 2026 Berlin is at 23:00, inside
 * '22:00-08:00'; New York (17:00) and UTC (21:00) are not.
 */
describe('quiet hours when sending and at login, end to end', () => {
  const EVENING = Date.UTC(2026, 5, 1, 21);
  /** 08:00 in Berlin (CEST) the next morning: the quiet hours' end. */
  const BERLIN_MORNING = Date.UTC(2026, 5, 2, 6);
  const clock = {
    at: EVENING,
    now() {
      return this.at;
    },
  };
  const uins = Uint32Array.from({ length: 90 }, (_, i) => i + 1);
  const zoneOf = (uin: number) => ['Europe/Berlin', 'America/New_York', undefined][uin % 3];
  const berlin = [...uins].filter((uin) => zoneOf(uin) === 'Europe/Berlin');
  const elsewhere = [...uins].filter((uin) => zoneOf(uin) !== 'Europe/Berlin');
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-quiet-hours-e2e-');
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits: 20,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 20 },
        dispatcher: { batchSize: 50, unitSize: 40 },
        executor: { ids: ['executor-1'] },
      },
      { clock },
    );
    await cluster.attributes.putUsers(
      [...uins].map((uin) => (zoneOf(uin) === undefined ? { uin } : { uin, tz: zoneOf(uin)! })),
    );
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  beforeEach(() => {
    clock.at = EVENING;
    for (const uin of uins) cluster.online.setOnline(uin, true);
  });

  let made = 0;
  /** A task of `accountId` to every user; each with its own content, so no-resend removes nobody. */
  async function create(accountId: string, body: Record<string, unknown>) {
    const list = await upload(cluster, `/api/v1/lists?accountId=${accountId}`, listBytes(uins));
    return call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId,
      listId: list.body.id,
      content: { body: `good night ${++made}` },
      ttlSeconds: 2 * 86_400,
      ...body,
    });
  }

  const fieldOf = (body: unknown) => (body as { error: { details: { field: string } } }).error.details.field;
  const sorted = (values: Iterable<number>) => [...values].sort((a, b) => a - b);

  it("with during 'offline', queues the pushes that land inside them and delivers them at the next login", async () => {
    const created = await create('acme', { quietHours: { hours: '22:00-08:00', during: 'offline' } });
    expect(created.status).toBe(201);
    expect(created.body.quietHours).toEqual({ from: '22:00', to: '08:00', during: 'offline' });
    const done = await waitForEnd(cluster, created.body.id);
    expect(done.state).toBe('COMPLETED');
    // Nothing held: sent at once, Berlin's users queued offline though online, the others pushed.
    expect(done.report.delivered).toBe(elsewhere.length);
    expect(done.report.offline).toBe(berlin.length);
    expect(sorted(await sinkUins(cluster, created.body.id))).toEqual(elsewhere);
    expect([...(await offlineUins(cluster, created.body.id))]).toEqual(berlin);
    // The next login after the quiet hours delivers them.
    clock.at = BERLIN_MORNING + 30 * 60_000;
    const login = await cluster.login(berlin);
    expect(login.delivered).toBe(berlin.length);
    expect(sorted(await sinkUins(cluster, created.body.id))).toEqual(sorted(uins));
    expect((await offlineUins(cluster, created.body.id)).length).toBe(0);
  }, 120_000);

  it("with the default 'hold', holds Berlin's pushes to the end of its quiet hours", async () => {
    const created = await create('acme', { quietHours: '22:00-08:00' });
    expect(created.status).toBe(201);
    await waitFor(async () => (await sinkUins(cluster, created.body.id).catch(() => [])).length === elsewhere.length, {
      timeoutMs: 60_000,
      message: 'the zones outside quiet hours were not sent',
    });
    const held = await cluster.store.getTask(created.body.id);
    expect(held!.state).toBe('SENDING');
    clock.at = BERLIN_MORNING;
    const done = await waitForEnd(cluster, created.body.id);
    expect(done.report.delivered).toBe(uins.length);
    expect(sorted(await sinkUins(cluster, created.body.id))).toEqual(sorted(uins));
  }, 120_000);

  it('a login inside quiet hours delivers the inbox, unless the account holds logins', async () => {
    const put = await call(cluster, 'PUT', '/api/v1/accounts/beta/local-time', {
      quietHours: { hours: '22:00-08:00', during: 'offline' },
      loginDelivery: 'hold',
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      accountId: 'beta',
      defaultTimeZone: null,
      quietHours: { hours: '22:00-08:00', during: 'offline' },
      loginDelivery: 'hold',
    });
    const holding = await create('beta', {});
    expect(holding.body.quietHours).toEqual({ from: '22:00', to: '08:00', during: 'offline', atLogin: 'hold' });
    const delivering = await create('acme', { quietHours: { hours: '22:00-08:00', during: 'offline' } });
    await waitForEnd(cluster, holding.body.id);
    await waitForEnd(cluster, delivering.body.id);
    expect([...(await offlineUins(cluster, holding.body.id))]).toEqual(berlin);
    // 23:30 in Berlin: acme's entry is delivered, beta's is kept for later.
    clock.at = EVENING + 30 * 60_000;
    const inside = await cluster.login(berlin);
    expect(inside).toMatchObject({ delivered: berlin.length, held: berlin.length });
    expect(sorted(await sinkUins(cluster, delivering.body.id))).toEqual(sorted(uins));
    expect([...(await offlineUins(cluster, holding.body.id))]).toEqual(berlin);
    // 08:30 in Berlin: the held entries are delivered.
    clock.at = BERLIN_MORNING + 30 * 60_000;
    const after = await cluster.login(berlin);
    expect(after).toMatchObject({ delivered: berlin.length, held: 0 });
    expect(sorted(await sinkUins(cluster, holding.body.id))).toEqual(sorted(uins));
    expect((await offlineUins(cluster, holding.body.id)).length).toBe(0);
  }, 120_000);

  it('refuses quiet hours and login rules that do not parse, naming the field, nothing created', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ quietHours: { hours: '08:00-08:00' } }, 'quietHours.hours'],
      [{ quietHours: { hours: '22:00-08:00', during: 'later' } }, 'quietHours.during'],
      [{ quietHours: { hours: '22:00-08:00', when: 'now' } }, 'quietHours.when'],
      [{ quietHours: { during: 'offline' } }, 'quietHours.hours'],
    ];
    const before = (await cluster.store.listTasks({ accountId: 'gamma' })).tasks.length;
    for (const [body, field] of cases) {
      const answer = await create('gamma', body);
      expect(answer.status).toBe(400);
      expect(fieldOf(answer.body)).toBe(field);
    }
    expect((await cluster.store.listTasks({ accountId: 'gamma' })).tasks.length).toBe(before);
    const badLogin = await call(cluster, 'PUT', '/api/v1/accounts/gamma/local-time', { loginDelivery: 'sometimes' });
    expect(badLogin.status).toBe(400);
    expect(fieldOf(badLogin.body)).toBe('loginDelivery');
    const badDuring = await call(cluster, 'PUT', '/api/v1/accounts/gamma/local-time', {
      quietHours: { hours: '22:00-08:00', during: 'never' },
    });
    expect(fieldOf(badDuring.body)).toBe('quietHours.during');
    const whole = await call(cluster, 'PUT', '/api/v1/accounts/gamma/local-time', { quietHours: '07:00-07:00' });
    expect(fieldOf(whole.body)).toBe('quietHours');
  });
});
