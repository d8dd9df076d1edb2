/**
 * POST /api/v1/campaigns/:id/run over real HTTP on real Level stores: a
 * manual run fires the campaign once now through the cron's firing path
 * (its task keyed campaign:<id>:<time>, the no-resend scope applied), is
 * recorded in the firing history as manual, leaves the schedule alone, works
 * on a disabled campaign, and is refused like a task would be (the list
 * gone, the confirmation rule) with nothing recorded.
 */
import { useCampaignApi, type CampaignApi } from './campaign-api.test-util';

const START = Date.parse('2025-03-28T12:00:00.250Z');
const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'Europe/Berlin',
  template: { listId: 'l_acme', content: { body: 'Digest of {{firing.date}}', template: true }, ttlSeconds: 3600 },
};

const api = useCampaignApi('herald-interface-campaign-run-', START);
const call = (...args: Parameters<CampaignApi['call']>) => api.call(...args);

async function campaign(overrides: object = {}): Promise<number> {
  const created = await call('POST', '/api/v1/campaigns', { ...body, ...overrides });
  expect(created.status).toBe(201);
  return created.body!.id as number;
}

describe('POST /api/v1/campaigns/:id/run', () => {
  it('fires once now through the firing path: a task from the template, a manual record, the schedule untouched', async () => {
    const id = await campaign({ template: { ...body.template, noResend: { scope: 'firing' } } });
    const run = await call('POST', `/api/v1/campaigns/${id}/run`);
    expect(run.status).toBe(201);
    expect(run.body).toEqual({
      campaignId: id,
      scheduledAt: START,
      outcome: 'fired',
      taskId: expect.any(Number),
      reason: null,
      at: START,
      manual: true,
      note: null,
    });
    const task = await api.tasks.getTask(run.body!.taskId as number);
    expect(task).toMatchObject({
      accountId: 'acme',
      listId: 'l_acme',
      // The firing variables are filled for the run's own time, in the campaign's zone.
      content: { body: 'Digest of 2025-03-28' },
      sendAt: START,
      expiresAt: START + 3_600_000,
      idempotencyKey: `campaign:${id}:${START}`,
      noResendSince: START,
    });
    const history = await call('GET', `/api/v1/campaigns/${id}/firings`);
    expect(history.body!.firings).toEqual([run.body]);
    const after = await call('GET', `/api/v1/campaigns/${id}`);
    expect(after.body!.lastScheduledAt).toBeUndefined();
    expect(after.body!.nextFireTimes[0]).toBe('2025-03-29T01:30:00.000Z');
  });

  it('runs a disabled campaign too, and each run is a firing and a task of its own', async () => {
    const id = await campaign({ enabled: false });
    const first = await call('POST', `/api/v1/campaigns/${id}/run`, {});
    api.now += 60_000;
    const second = await call('POST', `/api/v1/campaigns/${id}/run`);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body!.taskId).not.toBe(first.body!.taskId);
    const history = (await call('GET', `/api/v1/campaigns/${id}/firings`)).body!.firings;
    expect(history.map((f: { scheduledAt: number }) => f.scheduledAt)).toEqual([START + 60_000, START]);
    expect((await call('GET', `/api/v1/campaigns/${id}`)).body!.enabled).toBe(false);
  });

  it('never takes the identity of a time the schedule fires: a run on a whole second is recorded a millisecond later', async () => {
    const id = await campaign();
    api.now = Date.parse('2025-03-29T01:30:00Z');
    const run = await call('POST', `/api/v1/campaigns/${id}/run`);
    expect(run.body!.scheduledAt).toBe(api.now + 1);
  });

  it('refuses a run whose list is gone with 404 LIST_NOT_FOUND, recording nothing', async () => {
    const id = await campaign();
    // The list id now names another account's list: the campaign's account has no such list.
    await api.tasks.putList({
      id: 'l_acme',
      accountId: 'other',
      count: 5,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 40,
      createdAt: 0,
    });
    const run = await call('POST', `/api/v1/campaigns/${id}/run`);
    expect(run.status).toBe(404);
    expect(run.body!.error).toMatchObject({ code: 'LIST_NOT_FOUND', details: { field: 'template.listId' } });
    expect((await api.campaigns.listFirings(id)).firings).toEqual([]);
  });

  it('asks a run to many for the confirmation a task would need, and runs it with the count', async () => {
    await api.tasks.putList({
      id: 'l_big',
      accountId: 'acme',
      count: 1_000_001,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 8,
      createdAt: 0,
    });
    const id = await campaign({ template: { ...body.template, listId: 'l_big' } });
    const refused = await call('POST', `/api/v1/campaigns/${id}/run`);
    expect(refused.status).toBe(409);
    expect(refused.body!.error).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      details: { field: 'confirm', recipients: 1_000_001 },
    });
    expect((await api.campaigns.listFirings(id)).firings).toEqual([]);
    const confirmed = await call('POST', `/api/v1/campaigns/${id}/run`, { confirm: 1_000_001 });
    expect(confirmed.status).toBe(201);
  });

  it('refuses unknown body fields and bad ids naming the field, and a missing campaign with 404', async () => {
    const id = await campaign();
    const unknown = await call('POST', `/api/v1/campaigns/${id}/run`, { now: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body!.error.code).toBe('VALIDATION_FAILED');
    const badId = await call('POST', '/api/v1/campaigns/x/run');
    expect(badId.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'id' } });
    const missing = await call('POST', `/api/v1/campaigns/${id + 1}/run`);
    expect(missing.status).toBe(404);
    expect(missing.body!.error.code).toBe('CAMPAIGN_NOT_FOUND');
  });
});
