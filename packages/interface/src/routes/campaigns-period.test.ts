/**
 * A campaign's period and reach (issue 15): a cron that fires closer together
 * than campaigns.minPeriodMs is refused with 400 naming `cron` and the
 * smallest gap found, at creation and when changed; every campaign answer
 * carries projectedDailyReach, disabled campaigns included.
 */
import type { HeraldOptions } from '@herald/core/config';
import { LevelCampaignStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

// A Friday noon, UTC: the next seven days hold five weekdays.
const NOW = Date.parse('2025-03-28T12:00:00Z');
let dir: TempDir;
let campaigns: LevelCampaignStore;
let tokens: TestAccess;
let server: TestServer;
let base: string;

async function start(options: HeraldOptions = {}) {
  dir = await makeTempDir('herald-interface-campaign-period-');
  campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
  tokens = await openTestAccess();
  server = await startTestServer({ access: tokens.access, campaigns, config: options, clock: { now: () => NOW } });
  base = server.base;
  await server.store.putList({
    id: 'l_acme',
    accountId: 'acme',
    count: 2500,
    checksum: 1,
    sorted: true,
    unique: true,
    bytes: 10_000,
    createdAt: 0,
  });
}

async function stop() {
  await server.close();
  await tokens.close();
  await campaigns.close();
  await dir.remove();
}

afterEach(stop);

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens.adminToken}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const campaign = (cron: string, extra: object = {}) => ({
  accountId: 'acme',
  name: 'c',
  cron,
  timeZone: 'UTC',
  template: { listId: 'l_acme', content: { body: 'hi' } },
  ...extra,
});

describe('campaigns.minPeriodMs', () => {
  it.each([
    ['* * * * * *', 1000],
    ['*/5 * * * *', 300_000],
    // Fine most of the day, but 09:00 and 09:01 are a minute apart.
    ['0,1 9 * * *', 60_000],
  ])('refuses %s with 400 naming cron and the smallest gap (%i ms), storing nothing', async (cron, smallestGapMs) => {
    await start();
    const refused = await call('POST', '/api/v1/campaigns', campaign(cron));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'cron', smallestGapMs, minPeriodMs: 3_600_000 },
    });
    expect((await call('GET', '/api/v1/campaigns')).body.campaigns).toEqual([]);
  });

  it('takes an hourly cron, refuses changing it to a faster one, and follows a configured minimum', async () => {
    await start();
    const hourly = await call('POST', '/api/v1/campaigns', campaign('0 * * * *'));
    expect(hourly.status).toBe(201);
    const faster = await call('PATCH', `/api/v1/campaigns/${hourly.body.id}`, { cron: '*/30 * * * *' });
    expect(faster.status).toBe(400);
    expect(faster.body.error.details).toMatchObject({ field: 'cron', smallestGapMs: 1_800_000 });
    await stop();
    await start({ campaigns: { minPeriodMs: 1000 } });
    expect((await call('POST', '/api/v1/campaigns', campaign('* * * * * *'))).status).toBe(201);
  });
});

describe('projectedDailyReach', () => {
  it('answers firings a day over the coming week, the list size and their product, enabled or not', async () => {
    await start();
    const weekdays = await call('POST', '/api/v1/campaigns', campaign('0 9 * * 1-5', { enabled: false }));
    expect(weekdays.status).toBe(201);
    expect(weekdays.body.projectedDailyReach).toEqual({
      firingsPerDay: 0.714,
      recipientsPerFiring: 2500,
      recipientsPerDay: 1786,
    });
    const hourly = await call('POST', '/api/v1/campaigns', campaign('0 * * * *'));
    expect(hourly.body.projectedDailyReach).toEqual({
      firingsPerDay: 24,
      recipientsPerFiring: 2500,
      recipientsPerDay: 60_000,
    });
    const listed = (await call('GET', '/api/v1/campaigns')).body.campaigns.map(
      (c: { projectedDailyReach: unknown }) => c.projectedDailyReach,
    );
    expect(listed).toEqual([weekdays.body.projectedDailyReach, hourly.body.projectedDailyReach]);
  });
});
