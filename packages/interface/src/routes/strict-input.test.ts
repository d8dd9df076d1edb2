/**
 * Regressions of issue 15 ("strict input everywhere"), each as users met it
 * through the documented API: a typo'd field that was dropped (and the task
 * sent at once, the override wiped, the campaign changed), a wrong type that
 * was coerced, an impossible date that rolled over, and the error answers
 * outside the documented shape. Each answer must be a 400 (or its own
 * status) with a stable code naming the field, and nothing stored may change.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { encodeListHeader } from '@herald/core/recipient-list';
import { LevelCampaignStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startTestServer, type Answer, type Req, type TestServer } from '../access/test-server.test-util';

/** The server's clock: send times are judged against it. */
const NOW = Date.parse('2026-11-26T12:00:00Z');

let tokens: TestAccess;
let dir: TempDir;
let campaigns: LevelCampaignStore;
let server: TestServer;
let listId: string;
let campaignAt: string;

const call = (req: Req): Promise<Answer> => server.call(tokens.adminToken, req);

/** Expects a 400 VALIDATION_FAILED naming `field`. */
function expectRefused(answer: Answer, field: string): void {
  expect({ status: answer.status, code: answer.body.error?.code, field: answer.body.error?.details?.field }).toEqual({
    status: 400,
    code: 'VALIDATION_FAILED',
    field,
  });
}

beforeAll(async () => {
  tokens = await openTestAccess();
  dir = await makeTempDir('herald-interface-strict-');
  campaigns = await LevelCampaignStore.open(join(dir.path, 'campaigns'));
  server = await startTestServer({ access: tokens.access, campaigns, clock: { now: () => NOW } });
  listId = (await call({ method: 'POST', path: '/api/v1/lists?accountId=acme', body: LIST_BYTES })).body.id as string;
  const campaign = await call({
    method: 'POST',
    path: '/api/v1/campaigns',
    body: {
      accountId: 'acme',
      name: 'Morning',
      cron: '0 9 * * *',
      timeZone: 'Europe/Berlin',
      enabled: false,
      template: { listId, content: { body: 'Good morning' } },
    },
  });
  expect(campaign.status).toBe(201);
  campaignAt = `/api/v1/campaigns/${campaign.body.id as number}`;
});

afterAll(async () => {
  await server.close();
  await campaigns.close();
  await dir.remove();
  await tokens.close();
});

const task = (extra: Record<string, unknown>, content: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: '/api/v1/tasks',
  body: { accountId: 'acme', listId, content: { body: 'hello', ...content }, ...extra },
});

/** No task was created and nothing handed to the scheduler. */
async function expectNoTask(): Promise<void> {
  expect((await server.store.listTasks({})).tasks).toEqual([]);
  expect(server.sent).toEqual([]);
}

describe('unknown fields are refused, not dropped', () => {
  it("POST /api/v1/tasks with typo'd sendat and targetting: 400 naming sendat, no task sent at once", async () => {
    expectRefused(await call(task({ sendat: '2027-06-01T12:00:00Z', targetting: 'region:eu' })), 'sendat');
    expectRefused(await call(task({ targetting: 'region:eu' })), 'targetting');
    expectRefused(await call(task({}, { extra: 1 })), 'content.extra');
    await expectNoTask();
  });

  it('PUT /api/v1/accounts/:id/limits with dailyBroadcast: 400, the override kept', async () => {
    const at = '/api/v1/accounts/acme/limits';
    expect((await call({ method: 'PUT', path: at, body: { dailyBroadcasts: 4 } })).status).toBe(200);
    expectRefused(await call({ method: 'PUT', path: at, body: { dailyBroadcast: 2 } }), 'dailyBroadcast');
    expect((await call({ method: 'GET', path: at })).body.override).toEqual({ dailyBroadcasts: 4 });
  });

  it('PATCH of a campaign with evil or accountId: 400, the campaign unchanged', async () => {
    const before = (await call({ method: 'GET', path: campaignAt })).body;
    expectRefused(await call({ method: 'PATCH', path: campaignAt, body: { evil: 1 } }), 'evil');
    expectRefused(await call({ method: 'PATCH', path: campaignAt, body: { accountId: 'other' } }), 'accountId');
    expectRefused(
      await call({
        method: 'PATCH',
        path: campaignAt,
        body: { name: 'x', template: { listId, content: { body: 'b' }, extra: true } },
      }),
      'template.extra',
    );
    expect((await call({ method: 'GET', path: campaignAt })).body).toEqual(before);
  });

  it('an unknown query parameter, on a route with a query and on one without', async () => {
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?stat=QUEUED' }), 'stat');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks/1?verbose=1' }), 'verbose');
    expectRefused(await call({ method: 'GET', path: `${campaignAt}?x=1` }), 'x');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?__proto__=1' }), '__proto__');
  });

  it('a body on a route that takes none; {} or nothing is fine', async () => {
    expectRefused(await call({ method: 'POST', path: `${campaignAt}/disable`, body: { force: true } }), 'force');
    expect((await call({ method: 'POST', path: `${campaignAt}/disable`, body: {} })).status).toBe(200);
    expect((await call({ method: 'POST', path: `${campaignAt}/disable` })).status).toBe(200);
  });
});

describe('wrong types are refused, not coerced', () => {
  it('PATCH {"enabled": 1} does not enable a campaign', async () => {
    expectRefused(await call({ method: 'PATCH', path: campaignAt, body: { enabled: 1 } }), 'enabled');
    expect((await call({ method: 'GET', path: campaignAt })).body.enabled).toBe(false);
  });

  it.each([
    ['speed "10"', { speed: '10' }, {}, 'speed'],
    ['ttlSeconds "3600"', { ttlSeconds: '3600' }, {}, 'ttlSeconds'],
    ['title 7', {}, { title: 7 }, 'content.title'],
    ['template "true"', {}, { template: 'true' }, 'content.template'],
    ['priority 1', { priority: 1 }, {}, 'priority'],
  ])('POST /api/v1/tasks with %s', async (_, extra, content, field) => {
    expectRefused(await call(task(extra, content)), field);
    await expectNoTask();
  });

  it('PUT limits {"dailyBroadcasts": "4"}', async () => {
    expectRefused(
      await call({ method: 'PUT', path: '/api/v1/accounts/acme/limits', body: { dailyBroadcasts: '4' } }),
      'dailyBroadcasts',
    );
  });

  it('query text: "10" is an integer, "yes" no boolean, "1e3" and "0x10" no integer, a repeated parameter no value', async () => {
    expect((await call({ method: 'GET', path: '/api/v1/tasks?limit=10' })).status).toBe(200);
    expect((await call({ method: 'GET', path: '/api/v1/campaigns?enabled=false' })).status).toBe(200);
    expectRefused(await call({ method: 'GET', path: '/api/v1/campaigns?enabled=yes' }), 'enabled');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?limit=1e3' }), 'limit');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?limit=0x10' }), 'limit');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?limit=1&limit=2' }), 'limit');
  });
});

describe('dates are RFC 3339 with an offset, on the calendar, in range', () => {
  it.each([
    ['2027-02-30T10:00:00Z', 'February 2027 has 28 days'],
    ['2026-02-30T00:00:00Z', 'February 2026 has 28 days'],
    ['2027-06-01', 'not an RFC 3339 date-time'],
    ['Tue, 01 Jun 2027 12:00:00 GMT', 'not an RFC 3339 date-time'],
    ['2027-06-01T12:00:00', 'not an RFC 3339 date-time'],
    ['+275760-09-13T00:00:00Z', 'not an RFC 3339 date-time'],
    ['2026-11-25T12:00:00Z', 'in the past: omit sendAt to send now'],
    ['2027-11-26T12:00:01Z', 'more than 365 days ahead'],
  ])('sendAt %s is refused (%s)', async (sendAt, why) => {
    const answer = await call(task({ sendAt }));
    expectRefused(answer, 'sendAt');
    expect(answer.body.error!.message).toContain(why);
    await expectNoTask();
  });

  it("displayAt, createdFrom, createdBefore and the preview's after use the same parser", async () => {
    expectRefused(await call(task({ sendAt: '2026-12-01T00:00:00Z', displayAt: '2026-12-32T00:00:00Z' })), 'displayAt');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?createdFrom=2026-02-30T00:00:00Z' }), 'createdFrom');
    expectRefused(await call({ method: 'GET', path: '/api/v1/tasks?createdBefore=2026-11-01' }), 'createdBefore');
    expectRefused(
      await call({
        method: 'GET',
        path: '/api/v1/campaigns/preview?cron=0%209%20*%20*%20*&timeZone=UTC&after=2027-02-29T00:00:00Z',
      }),
      'after',
    );
    await expectNoTask();
  });
});

describe('every refusal answers the documented error body', () => {
  /** One raw request, its status and parsed body. */
  async function raw(options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }): Promise<{ status: number; body: Answer['body'] }> {
    const response = await fetch(server.base + options.path, {
      method: options.method,
      headers: { authorization: `Bearer ${tokens.adminToken}`, ...options.headers },
      body: options.body,
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  }

  it('malformed JSON: 400 MALFORMED_JSON', async () => {
    const answer = await raw({
      method: 'POST',
      path: '/api/v1/tasks',
      headers: { 'content-type': 'application/json' },
      body: '{"accountId":',
    });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 400, code: 'MALFORMED_JSON' });
  });

  it('a __proto__ or constructor key: 400 naming the field, not "not valid JSON"', async () => {
    const proto = await raw({
      method: 'POST',
      path: '/api/v1/tasks',
      headers: { 'content-type': 'application/json' },
      body: `{"accountId":"acme","listId":"${listId}","content":{"body":"x","__proto__":{"admin":true}}}`,
    });
    expect({ status: proto.status, code: proto.body.error?.code, field: proto.body.error?.details?.field }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      field: 'content.__proto__',
    });
    expect(proto.body.error!.message).toContain('not allowed');
    const ctor = await raw({
      method: 'PUT',
      path: '/api/v1/accounts/acme/limits',
      headers: { 'content-type': 'application/json' },
      body: '{"constructor":{"prototype":{}}}',
    });
    expect({ status: ctor.status, field: ctor.body.error?.details?.field }).toEqual({
      status: 400,
      field: 'constructor',
    });
    await expectNoTask();
  });

  it('413 BODY_TOO_LARGE, 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const large = await raw({
      method: 'POST',
      path: '/api/v1/tasks',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: { body: 'x'.repeat(2 << 20) } }),
    });
    expect({ status: large.status, code: large.body.error?.code }).toEqual({ status: 413, code: 'BODY_TOO_LARGE' });
    const xml = await raw({
      method: 'POST',
      path: '/api/v1/tasks',
      headers: { 'content-type': 'application/xml' },
      body: '<task/>',
    });
    expect({ status: xml.status, code: xml.body.error?.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('431 HEADERS_TOO_LARGE, before any route', async () => {
    const url = new URL(server.base);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: '/api/v1/health', headers: { 'x-big': 'y'.repeat(64 * 1024) } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
  });

  it('unrelated headers are let be', async () => {
    expect(
      (
        await raw({
          method: 'GET',
          path: '/api/v1/tasks',
          headers: { 'x-request-id': 'abc', 'x-forwarded-for': '10.0.0.1' },
        })
      ).status,
    ).toBe(200);
  });

  it('LIST_UIN_OUT_OF_RANGE names 2^64-1 exactly', async () => {
    const body = Buffer.alloc(8, 0xff);
    const file = Buffer.concat([encodeListHeader({ flags: 0, count: 1, bodyCrc: crc32(body) }), body]);
    const answer = await call({ method: 'POST', path: '/api/v1/lists?accountId=acme', body: new Uint8Array(file) });
    expect({ status: answer.status, code: answer.body.error?.code, uin: answer.body.error?.details?.uin }).toEqual({
      status: 400,
      code: 'LIST_UIN_OUT_OF_RANGE',
      uin: '18446744073709551615',
    });
    expect(answer.body.error!.message).toContain('18446744073709551615');
  });
});

// Last: it creates tasks, which the refusals above check there are none of.
describe('valid dates still create tasks', () => {
  it('takes a sendAt within the clock skew, and one with an offset', async () => {
    const created = await call(task({ sendAt: '2026-11-26T13:59:30+02:00', ttlSeconds: 3600 }));
    expect(created.status).toBe(201);
    expect(created.body.sendAt).toBe(NOW);
    const later = await call(task({ sendAt: '2027-11-26T12:00:00Z' }));
    expect(later.status).toBe(201);
    expect(later.body.sendAt).toBe(Date.parse('2027-11-26T12:00:00Z'));
  });
});
