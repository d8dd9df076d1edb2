/**
 * The campaign routes over real HTTP (127.0.0.1), on a real LevelTaskStore and
 * LevelCampaignStore in a temp dir, with an admin and an operator token and
 * an injected clock: CRUD, enable/disable, next fire times, the preview,
 * the firing history, typed validation errors naming the field, and account
 * scoping (another account's campaign answers exactly like a missing one).
 */
import { useCampaignApi, type CampaignApi } from './campaign-api.test-util';

const at = (iso: string) => Date.parse(iso);

const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'europe/berlin',
  template: { listId: 'l_acme', content: { body: 'Your digest', title: 'Digest' }, ttlSeconds: 3600 },
};

const api = useCampaignApi('herald-interface-campaigns-', at('2025-03-28T12:00:00Z'));
const call = (...args: Parameters<CampaignApi['call']>) => api.call(...args);
let operator: string;
beforeEach(async () => {
  operator = await api.tokens.token('operator', ['acme']);
});

describe('campaign routes', () => {
  it('creates a campaign and answers it with its next five fire times in its zone (DST gap included)', async () => {
    const created = await call('POST', '/api/v1/campaigns', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 1,
      accountId: 'acme',
      name: 'Night digest',
      cron: '30 2 * * *',
      timeZone: 'Europe/Berlin',
      enabled: true,
      template: {
        listId: 'l_acme',
        content: { body: 'Your digest', title: 'Digest' },
        priority: 'normal',
        ttlSeconds: 3600,
      },
      createdAt: api.now,
      activeFrom: api.now,
      nextFireTimes: [
        '2025-03-29T01:30:00.000Z',
        '2025-03-30T01:30:00.000Z',
        '2025-03-31T00:30:00.000Z',
        '2025-04-01T00:30:00.000Z',
        '2025-04-02T00:30:00.000Z',
      ],
    });
    expect((await call('GET', '/api/v1/campaigns/1')).body).toEqual(created.body);
  });

  it('keeps a personalised template, and refuses a bad one with 422 TEMPLATE_INVALID before storing anything', async () => {
    const personal = {
      ...body,
      template: { ...body.template, content: { body: 'Hi {{region|default:"there"}}', template: true } },
    };
    const created = await call('POST', '/api/v1/campaigns', personal);
    expect(created.status).toBe(201);
    expect(created.body!.template.content).toEqual({ body: 'Hi {{region|default:"there"}}', template: true });
    const bad = await call('POST', '/api/v1/campaigns', {
      ...body,
      template: { ...body.template, content: { body: 'Hi {{name}}', template: true } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body!.error).toMatchObject({
      code: 'TEMPLATE_INVALID',
      details: { field: 'template.content.body', position: 5 },
    });
    expect((await call('GET', '/api/v1/campaigns')).body!.campaigns).toHaveLength(1);
  });

  it('keeps a targeted template, and refuses a malformed query with 400 QUERY_INVALID before storing anything', async () => {
    const targeted = { ...body, template: { ...body.template, targeting: 'region:eu AND tag:beta' } };
    const created = await call('POST', '/api/v1/campaigns', targeted);
    expect(created.status).toBe(201);
    expect(created.body!.template.targeting).toBe('region:eu AND tag:beta');
    const bad = await call('POST', '/api/v1/campaigns', {
      ...body,
      template: { ...body.template, targeting: 'region:eu AND' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body!.error).toMatchObject({
      code: 'QUERY_INVALID',
      details: { field: 'template.targeting', position: 13 },
    });
    const patched = await call('PATCH', `/api/v1/campaigns/${created.body!.id}`, {
      template: { ...body.template, targeting: 'colour:red' },
    });
    expect(patched.status).toBe(400);
    expect((await call('GET', `/api/v1/campaigns/${created.body!.id}`)).body!.template.targeting).toBe(
      'region:eu AND tag:beta',
    );
    expect((await call('GET', '/api/v1/campaigns')).body!.campaigns).toHaveLength(1);
  });

  it('lists campaigns, filtered and paged', async () => {
    for (const accountId of ['acme', 'other', 'acme']) {
      await call('POST', '/api/v1/campaigns', {
        ...body,
        accountId,
        template: { ...body.template, listId: `l_${accountId}` },
      });
    }
    await call('POST', '/api/v1/campaigns/3/disable');
    const all = await call('GET', '/api/v1/campaigns?limit=2');
    expect(all.body!.campaigns.map((c: { id: number }) => c.id)).toEqual([1, 2]);
    expect(all.body!.nextCursor).toBe(2);
    expect((await call('GET', '/api/v1/campaigns?cursor=2')).body!.campaigns.map((c: { id: number }) => c.id)).toEqual([
      3,
    ]);
    expect(
      (await call('GET', '/api/v1/campaigns?accountId=acme&enabled=true')).body!.campaigns.map(
        (c: { id: number }) => c.id,
      ),
    ).toEqual([1]);
    expect((await call('GET', '/api/v1/campaigns?enabled=false')).body!.campaigns).toEqual([
      expect.objectContaining({ id: 3, enabled: false, nextFireTimes: [] }),
    ]);
  });

  it('finds campaigns by name, template text or id (q), naming q when it is empty', async () => {
    const plain = { ...body.template, content: { body: 'plain' } };
    await call('POST', '/api/v1/campaigns', { ...body, name: 'Weekly Roundup', template: plain });
    await call('POST', '/api/v1/campaigns', {
      ...body,
      name: 'n',
      template: { ...plain, content: { body: 'Flash SALE' } },
    });
    const found = async (q: string) =>
      (await call('GET', `/api/v1/campaigns?q=${encodeURIComponent(q)}`)).body!.campaigns.map(
        (c: { id: number }) => c.id,
      );
    expect(await found('roundup')).toEqual([1]);
    expect(await found('sale')).toEqual([2]);
    expect(await found('2')).toEqual([2]);
    const empty = await call('GET', '/api/v1/campaigns?q=');
    expect(empty.status).toBe(400);
    expect(empty.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'q' } });
  });

  it('changes, disables, enables and deletes a campaign', async () => {
    await call('POST', '/api/v1/campaigns', body);
    api.now += 1000;
    const patched = await call('PATCH', '/api/v1/campaigns/1', {
      cron: '0 9 * * mon',
      timeZone: 'UTC',
      name: 'Weekly',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Weekly',
      cron: '0 9 * * mon',
      timeZone: 'UTC',
      activeFrom: api.now,
      nextFireTimes: expect.arrayContaining(['2025-03-31T09:00:00.000Z']),
    });
    expect((await call('POST', '/api/v1/campaigns/1/disable')).body).toMatchObject({
      enabled: false,
      nextFireTimes: [],
    });
    expect((await call('POST', '/api/v1/campaigns/1/disable')).body).toMatchObject({ enabled: false });
    api.now += 1000;
    expect((await call('POST', '/api/v1/campaigns/1/enable')).body).toMatchObject({
      enabled: true,
      activeFrom: api.now,
    });
    expect((await call('PATCH', '/api/v1/campaigns/1', { enabled: false })).body).toMatchObject({ enabled: false });
    expect((await call('DELETE', '/api/v1/campaigns/1')).status).toBe(204);
    expect(await call('GET', '/api/v1/campaigns/1')).toEqual({
      status: 404,
      body: { error: { code: 'CAMPAIGN_NOT_FOUND', message: 'campaign 1 does not exist', details: { campaignId: 1 } } },
    });
    expect((await call('DELETE', '/api/v1/campaigns/1')).status).toBe(404);
  });

  it.each([
    ['a bad cron expression', { cron: '61 * * * *' }, 400, 'VALIDATION_FAILED', 'cron'],
    ['a cron expression with L', { cron: '0 0 L * *' }, 400, 'VALIDATION_FAILED', 'cron'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 400, 'VALIDATION_FAILED', 'timeZone'],
    ['an offset for a time zone', { timeZone: '+01:00' }, 400, 'VALIDATION_FAILED', 'timeZone'],
    [
      'content over tasks.maxContentChars',
      { template: { ...body.template, content: { body: 'x'.repeat(101) } } },
      400,
      'VALIDATION_FAILED',
      'template.content.body',
    ],
    [
      'a list of another account',
      { template: { ...body.template, listId: 'l_other' } },
      404,
      'LIST_NOT_FOUND',
      'template.listId',
    ],
    [
      'a lifetime over tasks.maxTtlMs',
      { template: { ...body.template, ttlSeconds: 31 * 86400 } },
      400,
      'VALIDATION_FAILED',
      'template.ttlSeconds',
    ],
  ])('refuses %s with a typed error naming the field', async (_what, change, status, code, field) => {
    const answer = await call('POST', '/api/v1/campaigns', { ...body, ...change });
    expect(answer.status).toBe(status);
    expect(answer.body!.error).toMatchObject({ code, details: expect.objectContaining({ field }) });
    expect((await call('GET', '/api/v1/campaigns')).body!.campaigns).toEqual([]);
  });

  it('refuses bodies and parameters outside the schemas with VALIDATION_FAILED', async () => {
    // (Unknown fields are dropped by Fastify's schema compiler, not refused.)
    for (const bad of [
      { ...body, name: '' },
      { ...body, enabled: 'yes' },
      { ...body, cron: 7 },
      { accountId: 'acme' },
    ]) {
      expect((await call('POST', '/api/v1/campaigns', bad)).body!.error.code).toBe('VALIDATION_FAILED');
    }
    await call('POST', '/api/v1/campaigns', body);
    expect((await call('POST', '/api/v1/campaigns', { ...body, name: '' })).body!.error.details).toEqual({
      field: 'name',
    });
    expect(
      (await call('POST', '/api/v1/campaigns', { ...body, template: { content: { body: 'x' } } })).body!.error.details,
    ).toEqual({ field: 'template.listId' });
    expect((await call('PATCH', '/api/v1/campaigns/1', {})).body!.error.code).toBe('VALIDATION_FAILED');
    expect((await call('PATCH', '/api/v1/campaigns/1', { cron: 'nope' })).body!.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'cron' },
    });
    expect((await call('GET', '/api/v1/campaigns/abc')).status).toBe(400);
    expect((await call('GET', '/api/v1/campaigns?limit=0')).status).toBe(400);
  });

  it('previews the next five fire times of an expression, or says which field is wrong', async () => {
    const preview = await call(
      'GET',
      `/api/v1/campaigns/preview?cron=${encodeURIComponent('*/15 9-17 * * mon-fri')}&timeZone=America/New_York`,
    );
    expect(preview).toEqual({
      status: 200,
      body: {
        cron: '*/15 9-17 * * mon-fri',
        timeZone: 'America/New_York',
        nextFireTimes: [
          '2025-03-28T13:00:00.000Z',
          '2025-03-28T13:15:00.000Z',
          '2025-03-28T13:30:00.000Z',
          '2025-03-28T13:45:00.000Z',
          '2025-03-28T14:00:00.000Z',
        ],
      },
    });
    const later = await call(
      'GET',
      `/api/v1/campaigns/preview?cron=${encodeURIComponent('@daily')}&timeZone=UTC&after=2030-01-01T00:00:00Z`,
    );
    expect(later.body!.nextFireTimes[0]).toBe('2030-01-02T00:00:00.000Z');
    expect((await call('GET', '/api/v1/campaigns/preview?cron=1+2+3&timeZone=UTC')).body!.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'cron' },
    });
    expect((await call('GET', '/api/v1/campaigns/preview?cron=*+*+*+*+*&timeZone=Nowhere')).body!.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'timeZone' },
    });
    expect(
      (await call('GET', '/api/v1/campaigns/preview?cron=*+*+*+*+*&timeZone=UTC&after=soon')).body!.error,
    ).toMatchObject({ details: { field: 'after' } });
    expect((await call('GET', '/api/v1/campaigns/preview?timeZone=UTC')).status).toBe(400);
  });

  it('answers the firing history newest first, paged by scheduled time', async () => {
    await call('POST', '/api/v1/campaigns', body);
    for (const minute of [1, 2, 3])
      await api.campaigns.recordFiring({
        campaignId: 1,
        scheduledAt: minute * 60_000,
        outcome: 'missed',
        reason: 'late',
        at: minute * 60_000 + 5,
      });
    const first = await call('GET', '/api/v1/campaigns/1/firings?limit=2');
    expect(first.body!.firings.map((f: { scheduledAt: number }) => f.scheduledAt)).toEqual([180_000, 120_000]);
    expect(first.body!.nextCursor).toBe(120_000);
    expect((await call('GET', `/api/v1/campaigns/1/firings?cursor=${first.body!.nextCursor}`)).body).toEqual({
      firings: [
        { campaignId: 1, scheduledAt: 60_000, outcome: 'missed', taskId: null, reason: 'late', at: 60_005, note: null },
      ],
      nextCursor: null,
    });
    expect((await call('GET', '/api/v1/campaigns/2/firings')).body!.error.code).toBe('CAMPAIGN_NOT_FOUND');
  });

  describe('an operator sees only its accounts', () => {
    it("answers another account's campaign exactly like a missing one, on every route", async () => {
      await call('POST', '/api/v1/campaigns', {
        ...body,
        accountId: 'other',
        template: { ...body.template, listId: 'l_other' },
      });
      const missing = await call('GET', '/api/v1/campaigns/2', undefined, operator);
      for (const [method, url, payload] of [
        ['GET', '/api/v1/campaigns/1'],
        ['PATCH', '/api/v1/campaigns/1', { name: 'mine now' }],
        ['POST', '/api/v1/campaigns/1/disable'],
        ['POST', '/api/v1/campaigns/1/enable'],
        ['POST', '/api/v1/campaigns/1/run'],
        ['DELETE', '/api/v1/campaigns/1'],
        ['GET', '/api/v1/campaigns/1/firings'],
      ] as const) {
        const answer = await call(method, url, payload, operator);
        expect(answer.status).toBe(404);
        expect(answer.body!.error.code).toBe('CAMPAIGN_NOT_FOUND');
        expect(answer.body!.error.message).toBe(missing.body!.error.message.replace('2', '1'));
      }
      expect(await api.campaigns.getCampaign(1)).toMatchObject({ name: 'Night digest', enabled: true });
      expect((await api.campaigns.listFirings(1)).firings).toEqual([]);
    });

    it('lists only its accounts, and cannot create in another', async () => {
      await call('POST', '/api/v1/campaigns', {
        ...body,
        accountId: 'other',
        template: { ...body.template, listId: 'l_other' },
      });
      expect((await call('POST', '/api/v1/campaigns', body, operator)).status).toBe(201);
      expect(
        (await call('GET', '/api/v1/campaigns', undefined, operator)).body!.campaigns.map(
          (c: { accountId: string }) => c.accountId,
        ),
      ).toEqual(['acme']);
      expect((await call('GET', '/api/v1/campaigns?accountId=other', undefined, operator)).body).toEqual({
        campaigns: [],
        nextCursor: null,
      });
      const refused = await call(
        'POST',
        '/api/v1/campaigns',
        { ...body, accountId: 'other', template: { ...body.template, listId: 'l_other' } },
        operator,
      );
      expect(refused.body!.error).toMatchObject({ code: 'LIST_NOT_FOUND', details: { field: 'template.listId' } });
    });
  });
});
