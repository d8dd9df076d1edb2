/**
 * POST /api/v1/campaigns with an Idempotency-Key header, over real HTTP on a
 * real LevelCampaignStore: a retry with the same body answers the campaign
 * the first try created (200, not 201) and stores nothing more; another body
 * with the key is 409 IDEMPOTENCY_KEY_REUSED; a bad key is 400 naming the
 * header; keys are scoped by account.
 */
import { useCampaignApi } from './campaign-api.test-util';

const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'europe/berlin',
  template: { listId: 'l_acme', content: { body: 'Your digest', title: 'Digest' }, ttlSeconds: 3600 },
};

const api = useCampaignApi('herald-interface-campaign-keys-', Date.parse('2025-03-28T12:00:00Z'));
const create = (payload: object, key: string, token?: string) =>
  api.call('POST', '/api/v1/campaigns', payload, token, { 'idempotency-key': key });
const count = async () => (await api.campaigns.listCampaigns()).campaigns.length;

describe('POST /api/v1/campaigns with Idempotency-Key', () => {
  it('answers a retry with the campaign the first try created: 201 then 200, one campaign', async () => {
    const first = await create(body, 'form-1');
    expect(first.status).toBe(201);
    expect(first.body!.idempotencyKey).toBe('api:acme:form-1');
    api.now += 1000;
    const retry = await create(body, 'form-1');
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    // The time zone in another spelling is the same request.
    expect((await create({ ...body, timeZone: 'Europe/Berlin' }, 'form-1')).status).toBe(200);
    expect(await count()).toBe(1);
    // Without a key, or with another key, each request is a campaign of its own.
    expect((await api.call('POST', '/api/v1/campaigns', body)).status).toBe(201);
    expect((await create(body, 'form-2')).status).toBe(201);
    expect(await count()).toBe(3);
  });

  it.each([
    ['name', { ...body, name: 'Other' }],
    ['cron', { ...body, cron: '0 3 * * *' }],
    ['list', { ...body, template: { ...body.template, listId: 'l_acme2' } }],
    ['content', { ...body, template: { ...body.template, content: { body: 'Else', title: 'Digest' } } }],
    ['priority', { ...body, template: { ...body.template, priority: 'realtime' } }],
    ['duration', { ...body, template: { ...body.template, ttlSeconds: 7200 } }],
    ['no-resend scope', { ...body, template: { ...body.template, noResend: { scope: 'firing' } } }],
  ])('refuses the key for another %s with 409 IDEMPOTENCY_KEY_REUSED naming the header', async (_, other) => {
    const first = await create(body, 'k');
    const reused = await create(other, 'k');
    expect(reused.status).toBe(409);
    expect(reused.body!.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { field: 'Idempotency-Key', campaignId: first.body!.id },
    });
    expect(await count()).toBe(1);
  });

  it.each([['with a space'], ['x'.repeat(129)], ['']])('refuses the key %j with 400 naming the header', async (key) => {
    const answer = await create(body, key);
    expect(answer.status).toBe(400);
    expect(answer.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'Idempotency-Key' } });
    expect(await count()).toBe(0);
  });

  it("scopes keys by account: another account's campaign with the same key is its own", async () => {
    const ours = await create(body, 'shared');
    const theirs = await create(
      { ...body, accountId: 'other', template: { ...body.template, listId: 'l_other' } },
      'shared',
    );
    expect(ours.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body!.id).not.toBe(ours.body!.id);
    expect(theirs.body!.idempotencyKey).toBe('api:other:shared');
  });
});
