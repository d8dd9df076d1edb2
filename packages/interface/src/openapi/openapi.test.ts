/**
 * The API reference (GET /api/docs/json, /api/docs): a valid OpenAPI 3.0
 * document, public, that describes every /api/v1 route the server registers
 * (the route table comes from an onRoute hook, so a route added without an
 * OPERATIONS entry fails here), each with a summary, a tag, its success
 * answers and its error answers in the shared Error schema. Then one call to
 * every route over real HTTP, each answer checked against what the document
 * says for its status.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import { apnsToken, waitFor } from '@herald/testing';
import Fastify from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { recordRoutes, routesOf, type RouteEntry } from '../access/route-table';
import {
  LIST_BYTES,
  startFullTestServer,
  type Answer,
  type FullTestServer,
  type Req,
} from '../access/test-server.test-util';
import { COMPONENTS, ref } from './components';
import { OPERATIONS, operationKey } from './operations';
import { registerOpenApi } from './register';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string; allOf?: { $ref?: string }[] } }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** What is wrong with `doc` for the routes registered: each problem names its route. */
function documentProblems(routes: readonly RouteEntry[], doc: Document): string[] {
  const problems: string[] = [];
  const apiRoutes = routes.filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/v1/'));
  for (const { method, url } of apiRoutes) {
    const key = operationKey(method, url);
    const op = doc.paths[openApiPath(url)]?.[method.toLowerCase()];
    if (op === undefined) {
      problems.push(`${key}: not in the document`);
      continue;
    }
    if (OPERATIONS[key] === undefined) problems.push(`${key}: no entry in OPERATIONS`);
    if (!op.summary) problems.push(`${key}: no summary`);
    if (!op.tags?.length) problems.push(`${key}: no tag`);
    const statuses = Object.keys(op.responses);
    if (!statuses.some((s) => s.startsWith('2'))) problems.push(`${key}: no success answer`);
    const errors = statuses.filter((s) => /^[45]/.test(s));
    if (errors.length === 0) problems.push(`${key}: no error answer`);
    for (const status of errors) {
      // allOf of one: the form that keeps the answer's example beside the reference (register.ts).
      const schema = op.responses[status]!.content?.['application/json']?.schema;
      if ((schema?.$ref ?? schema?.allOf?.[0]?.$ref) !== '#/components/schemas/Error')
        problems.push(`${key}: ${status} is not the Error schema`);
    }
  }
  const registered = new Set(apiRoutes.map((r) => operationKey(r.method, r.url)));
  for (const key of Object.keys(OPERATIONS))
    if (!registered.has(key)) problems.push(`${key}: in OPERATIONS but no such route`);
  return problems;
}

describe('the OpenAPI document', () => {
  it('names a route registered without an OPERATIONS entry, and an entry without a route', async () => {
    const app = Fastify();
    recordRoutes(app);
    registerOpenApi(app);
    void app.register(async (api) => {
      api.get('/api/v1/health', async () => ({ status: 'ok' }));
      api.get('/api/v1/undocumented', async () => ({}));
    });
    await app.ready();
    const problems = documentProblems(routesOf(app), app.swagger() as unknown as Document);
    expect(problems).toContain('GET /api/v1/undocumented: no entry in OPERATIONS');
    expect(problems).toContain('GET /api/v1/undocumented: no summary');
    expect(problems).toContain('GET /api/v1/undocumented: no error answer');
    expect(problems).toContain('POST /api/v1/tasks: in OPERATIONS but no such route');
    expect(problems.filter((p) => p.startsWith('GET /api/v1/health'))).toEqual([]);
    await app.close();
  });
});

describe('GET /api/docs', () => {
  let tokens: TestAccess;
  let server: FullTestServer;
  let doc: Document;
  const validators = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    tokens = await openTestAccess();
    // Every optional part of the API (campaigns, audiences; accounts always), so every route is registered.
    server = await startFullTestServer(tokens.access);
    const answer = await server.call(undefined, { method: 'GET', path: '/api/docs/json' });
    expect(answer.status).toBe(200);
    doc = answer.body as unknown as Document;
  });

  afterAll(async () => {
    await server.close();
    await tokens.close();
  });

  it('serves a valid OpenAPI 3.0 document without a token', async () => {
    expect(doc.openapi).toMatch(/^3\.0\./);
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('describes every registered /api/v1 route, with a summary, a tag, its answers and its errors', () => {
    expect(routesOf(server.app).filter((r) => r.url.startsWith('/api/v1/')).length).toBeGreaterThan(20);
    expect(documentProblems(routesOf(server.app), doc)).toEqual([]);
  });

  it('leaves out what is not the API, and asks for a token on every route but health and the console session', () => {
    expect(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/v1/'))).toEqual([]);
    const open = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.length === 0)
        .map(([method]) => `${method} ${path}`),
    );
    // The session routes take the token in their body (POST) or need none (DELETE).
    expect(open.sort()).toEqual(['delete /api/v1/session', 'get /api/v1/health', 'post /api/v1/session']);
  });

  it('serves Swagger UI and its assets without a token', async () => {
    const page = await fetch(`${server.base}/api/docs/`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
    const bundle = await fetch(`${server.base}/api/docs/static/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it('answers every route as the document says, successes and errors', async () => {
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ $id: 'herald', components: { schemas: COMPONENTS } });
    const covered = new Set<string>();
    const admin = tokens.adminToken;

    /** Calls the route `key` names and checks the answer's status and body against the document. */
    const call = async (
      key: string,
      req: Req & { token?: string | null; contentType?: string; rawBody?: string },
      expected: number,
    ): Promise<Answer['body']> => {
      const token = req.token === undefined ? admin : (req.token ?? undefined);
      let answer: Answer;
      if (req.rawBody !== undefined) {
        const response = await fetch(server.base + req.path, {
          method: req.method,
          headers: { authorization: `Bearer ${token}`, 'content-type': req.contentType! },
          body: req.rawBody,
        });
        answer = {
          status: response.status,
          headers: response.headers,
          body: JSON.parse(await response.text()) as Answer['body'],
        };
      } else {
        answer = await server.call(token, req);
      }
      expect({ key, status: answer.status, body: answer.body }).toMatchObject({ key, status: expected });
      const [method, url] = key.split(' ') as [string, string];
      const documented = doc.paths[openApiPath(url)]![method.toLowerCase()]!.responses[String(expected)];
      expect({ key, status: expected, documented: documented !== undefined }).toEqual({
        key,
        status: expected,
        documented: true,
      });
      const success = OPERATIONS[key]!.responses[expected];
      // An error answer is the Error component; a success its documented schema (a component, or inline), or no body.
      const schema = success === undefined ? ref('Error') : success.schema;
      if (schema === null) {
        expect(answer.body).toEqual({ text: '' });
      } else {
        // Components resolve inside the 'herald' schema that holds them all.
        const id = `${key} ${expected}`;
        let validate = validators.get(id);
        if (validate === undefined)
          validators.set(
            id,
            (validate = ajv.compile(typeof schema.$ref === 'string' ? { $ref: `herald${schema.$ref}` } : schema)),
          );
        expect({ key, body: answer.body, valid: validate(answer.body), errors: validate.errors ?? null }).toEqual({
          key,
          body: answer.body,
          valid: true,
          errors: null,
        });
      }
      covered.add(key);
      return answer.body;
    };

    await call('GET /api/v1/health', { method: 'GET', path: '/api/v1/health', token: null }, 200);
    await call('GET /api/v1/me', { method: 'GET', path: '/api/v1/me' }, 200);
    await call('GET /api/v1/me', { method: 'GET', path: '/api/v1/me', token: null }, 401);
    const session = { method: 'POST', path: '/api/v1/session', token: null };
    await call('POST /api/v1/session', { ...session, body: { token: admin, keep: true } }, 200);
    await call('POST /api/v1/session', { ...session, body: { token: 'hrd_abcd_' + 'x'.repeat(43) } }, 401);
    await call('POST /api/v1/session', { ...session, body: { token: admin, remember: true } }, 400);
    await call('DELETE /api/v1/session', { method: 'DELETE', path: '/api/v1/session', token: null }, 204);

    const list = await call(
      'POST /api/v1/lists',
      { method: 'POST', path: '/api/v1/lists?accountId=acme', body: LIST_BYTES },
      201,
    );
    await call(
      'POST /api/v1/lists',
      {
        method: 'POST',
        path: '/api/v1/lists?accountId=acme&maxBadRatio=0.5',
        rawBody: '7\n8\nnine\n',
        contentType: 'text/plain',
      },
      201,
    );
    await call(
      'POST /api/v1/lists',
      { method: 'POST', path: '/api/v1/lists?accountId=acme', body: new Uint8Array([1, 2, 3]) },
      400,
    );
    await call('GET /api/v1/lists/:id', { method: 'GET', path: `/api/v1/lists/${list.id as string}` }, 200);
    await call('GET /api/v1/lists/:id', { method: 'GET', path: '/api/v1/lists/l_nothing' }, 404);
    await call(
      'PUT /api/v1/blacklists/global',
      { method: 'PUT', path: '/api/v1/blacklists/global', body: LIST_BYTES },
      200,
    );
    await call(
      'PUT /api/v1/accounts/:accountId/blacklist',
      { method: 'PUT', path: '/api/v1/accounts/acme/blacklist', body: LIST_BYTES },
      200,
    );
    await call(
      'PUT /api/v1/accounts/:accountId/blacklist',
      { method: 'PUT', path: '/api/v1/accounts/acme/blacklist', rawBody: 'uin\n5\n', contentType: 'text/csv' },
      200,
    );
    await call('GET /api/v1/blacklists/global', { method: 'GET', path: '/api/v1/blacklists/global' }, 200);
    await call('GET /api/v1/blacklists/global', { method: 'GET', path: '/api/v1/blacklists/global?download=1' }, 400);
    const acmeBlacklist = { method: 'GET', path: '/api/v1/accounts/acme/blacklist' };
    await call('GET /api/v1/accounts/:accountId/blacklist', acmeBlacklist, 200);
    await call('DELETE /api/v1/blacklists/global', { method: 'DELETE', path: '/api/v1/blacklists/global' }, 200);
    await call(
      'DELETE /api/v1/accounts/:accountId/blacklist',
      { method: 'DELETE', path: '/api/v1/accounts/acme/blacklist' },
      200,
    );

    const create = {
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId: 'acme', listId: list.id, content: { body: 'hello', title: 'Hi' } },
    };
    const task = await call('POST /api/v1/tasks', create, 201);
    await call('POST /api/v1/tasks', { ...create, body: { accountId: 'acme' } }, 400);
    await call('GET /api/v1/tasks', { method: 'GET', path: '/api/v1/tasks?accountId=acme&limit=1' }, 200);
    await call('GET /api/v1/tasks/:id', { method: 'GET', path: `/api/v1/tasks/${task.id as number}` }, 200);
    await call('GET /api/v1/tasks/:id', { method: 'GET', path: '/api/v1/tasks/999999' }, 404);
    const recipient = (path: string) => ({ method: 'GET', path: `/api/v1/tasks/${path}` });
    // Nothing pre-processes here: the task's list is not filtered yet.
    await call('GET /api/v1/tasks/:id/recipients/:uin', recipient(`${task.id as number}/recipients/7`), 409);
    await call('GET /api/v1/tasks/:id/recipients/:uin', recipient(`${task.id as number}/recipients/x`), 400);
    await call('GET /api/v1/tasks/:id/recipients/:uin', recipient('999999/recipients/7'), 404);
    await call('GET /api/v1/tasks/:id/report', recipient(`${task.id as number}/report`), 409);
    await call('GET /api/v1/tasks/:id/report', recipient(`${task.id as number}/report?cursor=1-x`), 400);
    await call('GET /api/v1/tasks/:id/report', recipient('999999/report'), 404);
    // Not filtered yet: the funnel answers the audience and says the rest is unknown.
    await call('GET /api/v1/tasks/:id/funnel', recipient(`${task.id as number}/funnel`), 200);
    await call('GET /api/v1/tasks/:id/funnel', recipient('999999/funnel'), 404);
    await call('GET /api/v1/tasks/:id/funnel', recipient('x/funnel'), 400);
    // Still running (CREATED): its records are not purged.
    const purge = (id: number | string) => ({ method: 'DELETE', path: `/api/v1/tasks/${id}/records` });
    await call('DELETE /api/v1/tasks/:id/records', purge(task.id as number), 409);
    await call('DELETE /api/v1/tasks/:id/records', purge(999_999), 404);
    await call('DELETE /api/v1/tasks/:id/records', purge('x'), 400);
    // The task above is not filtered yet: the history lists it, its fate unknown.
    const history = (query: string) => ({ method: 'GET', path: `/api/v1/recipients/7/history?${query}` });
    await call('GET /api/v1/recipients/:uin/history', history('accountId=acme'), 200);
    await call('GET /api/v1/recipients/:uin/history', history('accountId=acme&from=2026-02-30T00:00:00Z'), 400);
    await call('GET /api/v1/recipients/:uin/history', history('accountId=acme&cursor=8-1'), 400);
    await call(
      'GET /api/v1/tasks/:id/progress',
      { method: 'GET', path: `/api/v1/tasks/${task.id as number}/progress` },
      200,
    );
    await call('GET /api/v1/tasks/:id/progress', { method: 'GET', path: '/api/v1/tasks/999999/progress' }, 404);
    await call(
      'POST /api/v1/tasks/:id/pause',
      { method: 'POST', path: `/api/v1/tasks/${task.id as number}/pause` },
      202,
    );
    await call(
      'POST /api/v1/tasks/:id/resume',
      { method: 'POST', path: `/api/v1/tasks/${task.id as number}/resume` },
      409,
    );
    // Not a canary: the promote is refused as the document says.
    await call(
      'POST /api/v1/tasks/:id/promote',
      { method: 'POST', path: `/api/v1/tasks/${task.id as number}/promote` },
      409,
    );
    await call(
      'POST /api/v1/tasks/:id/engagement',
      { method: 'POST', path: `/api/v1/tasks/${task.id as number}/engagement`, body: { clicks: 3, opens: 9 } },
      200,
    );
    // The task's report now carries the engagement: the document tells that field too.
    await call('GET /api/v1/tasks/:id', { method: 'GET', path: `/api/v1/tasks/${task.id as number}` }, 200);
    await call(
      'POST /api/v1/tasks/:id/cancel',
      { method: 'POST', path: `/api/v1/tasks/${task.id as number}/cancel` },
      202,
    );

    await call(
      'GET /api/v1/templates/preview',
      {
        method: 'GET',
        path: `/api/v1/templates/preview?uin=7&title=T&body=${encodeURIComponent('Hi {{region|default:"you"}}')}`,
      },
      200,
    );
    await call(
      'GET /api/v1/templates/preview',
      { method: 'GET', path: `/api/v1/templates/preview?uin=7&body=${encodeURIComponent('Hi {{name}}')}` },
      422,
    );
    await call(
      'GET /api/v1/campaigns/preview',
      { method: 'GET', path: '/api/v1/campaigns/preview?cron=0%209%20*%20*%20*&timeZone=Europe/Berlin' },
      200,
    );
    const campaignBody = {
      accountId: 'acme',
      name: 'Morning',
      cron: '0 9 * * *',
      timeZone: 'Europe/Berlin',
      template: { listId: list.id, content: { body: 'Good morning' } },
    };
    const campaign = await call(
      'POST /api/v1/campaigns',
      { method: 'POST', path: '/api/v1/campaigns', body: campaignBody },
      201,
    );
    const at = `/api/v1/campaigns/${campaign.id as number}`;
    await call('GET /api/v1/campaigns', { method: 'GET', path: '/api/v1/campaigns' }, 200);
    await call('GET /api/v1/campaigns/:id', { method: 'GET', path: at }, 200);
    await call('PATCH /api/v1/campaigns/:id', { method: 'PATCH', path: at, body: { name: 'Mornings' } }, 200);
    await call('POST /api/v1/campaigns/:id/disable', { method: 'POST', path: `${at}/disable` }, 200);
    await call('POST /api/v1/campaigns/:id/enable', { method: 'POST', path: `${at}/enable` }, 200);
    await call('POST /api/v1/campaigns/:id/run', { method: 'POST', path: `${at}/run` }, 201);
    await call('GET /api/v1/campaigns/:id/firings', { method: 'GET', path: `${at}/firings` }, 200);
    await call('DELETE /api/v1/campaigns/:id', { method: 'DELETE', path: at }, 204);
    await call('GET /api/v1/campaigns/:id', { method: 'GET', path: at }, 404);

    const limitsAt = '/api/v1/accounts/acme/limits';
    await call('GET /api/v1/accounts/:accountId/limits', { method: 'GET', path: limitsAt }, 200);
    await call('GET /api/v1/accounts/:accountId/limits', { method: 'GET', path: '/api/v1/accounts/ACME/limits' }, 400);
    await call(
      'PUT /api/v1/accounts/:accountId/click-through-rate',
      { method: 'PUT', path: '/api/v1/accounts/acme/click-through-rate', body: { rate: 0.02 } },
      200,
    );
    await call(
      'PUT /api/v1/accounts/:accountId/limits',
      { method: 'PUT', path: limitsAt, body: { dailyBroadcasts: -1 } },
      400,
    );
    await call(
      'PUT /api/v1/accounts/:accountId/limits',
      { method: 'PUT', path: limitsAt, body: { dailyBroadcasts: 1 } },
      200,
    );
    const localAt = '/api/v1/accounts/acme/local-time';
    await call('GET /api/v1/accounts/:accountId/local-time', { method: 'GET', path: localAt }, 200);
    await call(
      'PUT /api/v1/accounts/:accountId/local-time',
      { method: 'PUT', path: localAt, body: { quietHours: '08:00-08:00' } },
      400,
    );
    await call(
      'PUT /api/v1/accounts/:accountId/local-time',
      { method: 'PUT', path: localAt, body: { defaultTimeZone: 'Europe/Berlin' } },
      200,
    );
    // acme created its one broadcast of the day above.
    await call('POST /api/v1/tasks', create, 422);

    const users = { users: [{ uin: 5, region: 'cn-gd', gender: 'f', tags: ['vip'] }] };
    await call('POST /api/v1/user-attributes', { method: 'POST', path: '/api/v1/user-attributes', body: users }, 200);
    await call('GET /api/v1/user-attributes/:uin', { method: 'GET', path: '/api/v1/user-attributes/5' }, 200);
    await call('GET /api/v1/user-attributes/:uin', { method: 'GET', path: '/api/v1/user-attributes/6' }, 404);
    await call(
      'POST /api/v1/follows',
      {
        method: 'POST',
        path: '/api/v1/follows',
        body: { changes: [{ accountId: 'acme', uin: 5, following: true, at: 1 }] },
      },
      200,
    );
    await call(
      'POST /api/v1/audiences/check-query',
      { method: 'POST', path: '/api/v1/audiences/check-query', body: { query: 'region:cn-gd AND tag:vip' } },
      200,
    );
    await call(
      'POST /api/v1/audiences/check-query',
      { method: 'POST', path: '/api/v1/audiences/check-query', body: { query: 'tag:a OR (tag:b' } },
      400,
    );
    await call(
      'GET /api/v1/audiences/check-query',
      { method: 'GET', path: `/api/v1/audiences/check-query?query=${encodeURIComponent('tag:vip OR tag:new')}` },
      200,
    );
    await call(
      'GET /api/v1/audiences/check-query',
      { method: 'GET', path: '/api/v1/audiences/check-query?query=tag%3A' },
      400,
    );
    const job = await call(
      'POST /api/v1/audiences',
      { method: 'POST', path: '/api/v1/audiences', body: { accountId: 'acme', source: { kind: 'followers' } } },
      202,
    );
    const jobAt = `/api/v1/audiences/${job.id as string}`;
    await waitFor(async () => (await server.call(admin, { method: 'GET', path: jobAt })).body.state !== 'running', {
      message: 'the audience job ends',
    });
    expect(await call('GET /api/v1/audiences/:id', { method: 'GET', path: jobAt }, 200)).toMatchObject({
      state: 'done',
      list: { count: 1 },
    });
    await call('GET /api/v1/audiences', { method: 'GET', path: '/api/v1/audiences?accountId=acme' }, 200);
    await call('DELETE /api/v1/audiences/:id', { method: 'DELETE', path: jobAt }, 200);
    await call('DELETE /api/v1/audiences/:id', { method: 'DELETE', path: '/api/v1/audiences/a_nothing' }, 404);
    await call('DELETE /api/v1/user-attributes/:uin', { method: 'DELETE', path: '/api/v1/user-attributes/5' }, 204);

    await call('GET /api/v1/cluster', { method: 'GET', path: '/api/v1/cluster' }, 200);
    await call('GET /api/v1/channels', { method: 'GET', path: '/api/v1/channels' }, 200);
    const limits = (body: unknown) => ({ method: 'PUT', path: '/api/v1/channels/webhook/limits', body });
    await call('PUT /api/v1/channels/:channel/limits', limits({ maxRate: 2000 }), 200);
    await call('PUT /api/v1/channels/:channel/limits', limits({ maxRate: 2000, burst: 1 }), 400);
    await call(
      'PUT /api/v1/channels/:channel/limits',
      { method: 'PUT', path: '/api/v1/channels/kafka/limits', body: { maxRate: 10 } },
      404,
    );
    const device = `/api/v1/devices/${apnsToken(7).toUpperCase()}`;
    await call('PUT /api/v1/devices/:token', { method: 'PUT', path: device, body: { uin: 5, platform: 'apns' } }, 200);
    await call(
      'PUT /api/v1/devices/:token',
      { method: 'PUT', path: device, body: { uin: 5, platform: 'fcm', os: 'x' } },
      400,
    );
    await call('GET /api/v1/recipients/:uin/devices', { method: 'GET', path: '/api/v1/recipients/5/devices' }, 200);
    await call('GET /api/v1/recipients/:uin/devices', { method: 'GET', path: '/api/v1/recipients/x/devices' }, 400);
    await call('DELETE /api/v1/devices/:token', { method: 'DELETE', path: device }, 200);
    await call('DELETE /api/v1/devices/:token', { method: 'DELETE', path: '/api/v1/devices/a%20b' }, 400);
    const made = await call(
      'POST /api/v1/tokens',
      { method: 'POST', path: '/api/v1/tokens', body: { name: 'night shift', role: 'operator', accounts: ['acme'] } },
      201,
    );
    await call('GET /api/v1/cluster', { method: 'GET', path: '/api/v1/cluster', token: made.token as string }, 403);
    await call('GET /api/v1/tokens', { method: 'GET', path: '/api/v1/tokens' }, 200);
    await call('DELETE /api/v1/tokens/:id', { method: 'DELETE', path: `/api/v1/tokens/${made.id as string}` }, 200);
    await call('GET /api/v1/audit', { method: 'GET', path: '/api/v1/audit?limit=5' }, 200);

    expect(Object.keys(OPERATIONS).filter((key) => !covered.has(key))).toEqual([]);
  });
});
