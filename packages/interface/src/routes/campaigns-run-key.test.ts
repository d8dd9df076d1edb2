/**
 * POST /api/v1/campaigns/:id/run with an Idempotency-Key, over real HTTP on
 * real Level stores: a retry after a lost answer is answered with the first
 * try's firing (200) and fires nothing; the key used to run another
 * campaign is refused; a bad key names the header.
 */
import { useCampaignApi, type CampaignApi } from './campaign-api.test-util';

const START = Date.parse('2025-03-28T12:00:00.250Z');
const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'Europe/Berlin',
  template: { listId: 'l_acme', content: { body: 'Digest' }, ttlSeconds: 3600 },
};

const api = useCampaignApi('herald-interface-campaign-run-key-', START);

async function campaign(): Promise<number> {
  const created = await api.call('POST', '/api/v1/campaigns', body);
  expect(created.status).toBe(201);
  return created.body!.id as number;
}

function run(id: number, key: string): ReturnType<CampaignApi['call']> {
  return api.call('POST', `/api/v1/campaigns/${id}/run`, undefined, undefined, { 'idempotency-key': key });
}

describe('POST /api/v1/campaigns/:id/run with an Idempotency-Key', () => {
  it('answers a retry with the first run (200) and fires once: one firing, one task', async () => {
    const id = await campaign();
    const first = await run(id, 'run-1');
    expect(first.status).toBe(201);
    // The operator's answer was lost; they click again a minute later.
    api.now += 60_000;
    const retry = await run(id, 'run-1');
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(first.body).not.toHaveProperty('runKey');
    const history = (await api.call('GET', `/api/v1/campaigns/${id}/firings`)).body!.firings;
    expect(history).toEqual([first.body]);
    const task = await api.tasks.getTask(first.body!.taskId as number);
    // The task keeps the key that names its campaign (the console links a task to its campaign by it).
    expect(task!.idempotencyKey).toBe(`campaign:${id}:${START}`);
    const another = await run(id, 'run-2');
    expect(another.status).toBe(201);
    expect(another.body!.taskId).not.toBe(first.body!.taskId);
  });

  it('refuses the key of a run of another campaign as a key reused, firing nothing', async () => {
    const first = await campaign();
    const second = await campaign();
    expect((await run(first, 'shared')).status).toBe(201);
    const refused = await run(second, 'shared');
    expect(refused.status).toBe(409);
    expect(refused.body!.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { field: 'Idempotency-Key', campaignId: first },
    });
    expect((await api.campaigns.listFirings(second)).firings).toEqual([]);
  });

  it('refuses a retry of a run recorded missed as the first try was refused, firing nothing', async () => {
    const id = await campaign();
    // A first try that lost a race after its checks (the list deleted meanwhile) was recorded missed under its key.
    const missed = await api.campaigns.recordFiring({
      campaignId: id,
      scheduledAt: START,
      outcome: 'missed',
      reason: 'list_not_found',
      at: START,
      manual: true,
      runKey: 'api:acme:lost-race',
    });
    const retry = await run(id, 'lost-race');
    expect(retry.status).toBe(404);
    expect(retry.body!.error).toMatchObject({ code: 'LIST_NOT_FOUND', details: { field: 'template.listId' } });
    expect((await api.campaigns.listFirings(id)).firings).toEqual([missed]);
  });

  it('refuses a bad key naming the header, firing nothing', async () => {
    const id = await campaign();
    for (const key of ['has space', 'x'.repeat(129)]) {
      const refused = await run(id, key);
      expect(refused.status).toBe(400);
      expect(refused.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'Idempotency-Key' } });
    }
    expect((await api.campaigns.listFirings(id)).firings).toEqual([]);
  });
});
