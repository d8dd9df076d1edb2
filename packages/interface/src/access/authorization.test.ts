/**
 * The authorization matrix: for EVERY route the server registers (read from
 * its route table, so a route added without an entry here fails this test),
 * what each caller gets:
 *
 * - no token: 401 UNAUTHENTICATED, except the public reads;
 * - an operator of account acme on account globex's resource: exactly the
 *   answer (status, code, message and details, ids aside) of a resource that
 *   does not exist, never a 403, so it cannot learn that globex's exists;
 *   and the operator of globex, or an admin, gets past the check;
 * - admin-only routes: 403 FORBIDDEN for any operator, allowed for an admin.
 *
 * Listings leave other accounts out; the management endpoints are not on the
 * public listener; mutations land in the audit log.
 */
import { ErrorCodes } from '@herald/core';
import { TOKEN_ID_PATTERN, type AuditEntry } from '@herald/core/access';
import type { Task } from '@herald/core/task';
import { LevelCampaignStore } from '@herald/store-level';
import { fcmToken, makeTempDir, type TempDir } from '@herald/testing';
import { routesOf } from './route-table';
import { openTestAccess, type TestAccess } from './test-access.test-util';
import { LIST_BYTES, startTestServer, type Answer, type Req, type TestServer } from './test-server.test-util';

let tokens: TestAccess;
let server: TestServer;
let campaignDir: TempDir;
let campaigns: LevelCampaignStore;
let admin: string;
/** Operator of acme only: the caller whose view of globex is tested. */
let acmeOps: string;
/** Operator of globex: the foreign resources' own operator. */
let globexOps: string;

/** globex's resources (foreign to acmeOps) and acme's (its own). */
const seeded = {} as {
  globexList: string;
  globexTask: Task;
  acmeList: string;
  acmeTask: Task;
  globexCampaign: number;
  deleted: number;
};

beforeAll(async () => {
  tokens = await openTestAccess();
  campaignDir = await makeTempDir('herald-interface-campaigns-');
  campaigns = await LevelCampaignStore.open(campaignDir.path);
  server = await startTestServer({ access: tokens.access, campaigns });
  admin = tokens.adminToken;
  acmeOps = await tokens.token('operator', ['acme'], 'acme ops');
  globexOps = await tokens.token('operator', ['globex'], 'globex ops');
  const upload = async (account: string) =>
    (await server.call(admin, { method: 'POST', path: `/api/v1/lists?accountId=${account}`, body: LIST_BYTES })).body
      .id as string;
  const task = async (accountId: string, listId: string) =>
    (
      await server.call(admin, {
        method: 'POST',
        path: '/api/v1/tasks',
        body: { accountId, listId, content: { body: `hello ${accountId}` } },
      })
    ).body as unknown as Task;
  seeded.globexList = await upload('globex');
  seeded.acmeList = await upload('acme');
  seeded.globexTask = await task('globex', seeded.globexList);
  seeded.acmeTask = await task('acme', seeded.acmeList);
  seeded.globexCampaign = (
    await server.call(admin, {
      method: 'POST',
      path: '/api/v1/campaigns',
      body: campaignBody('globex', seeded.globexList),
    })
  ).body.id as number;
});

afterAll(async () => {
  await server?.close();
  await campaigns?.close();
  await campaignDir?.remove();
  await tokens?.close();
});

function campaignBody(accountId: string, listId: string) {
  return {
    accountId,
    name: `daily ${accountId}`,
    cron: '0 9 * * *',
    timeZone: 'Europe/Berlin',
    enabled: false,
    template: { listId, content: { body: 'good morning' } },
  };
}

type Spec =
  /** Anyone, no token needed (GET/HEAD only). */
  | { kind: 'public'; probe: Req }
  /** Any verified caller, whatever its role. */
  | { kind: 'any'; request: () => Req; ok: number }
  /** Admin only: an operator gets 403 FORBIDDEN. */
  | { kind: 'admin'; request: () => Req | Promise<Req>; ok: number }
  /**
   * One account's resource. `foreign` targets globex's; `missing` the same
   * route on something that does not exist. `ok`: what globex's own operator
   * and an admin get on `foreign`.
   */
  | { kind: 'account'; foreign: () => Req | Promise<Req>; missing: () => Req; ids: () => string[]; ok: number }
  /** A listing: filtered to the caller's accounts (checked in its own test below). */
  | { kind: 'listing'; request: () => Req }
  /**
   * The console's session routes: no Authorization header; POST checks the
   * token in its body, DELETE needs none (routes/session.test.ts). `anonymous`:
   * what a caller with no valid token gets.
   */
  | { kind: 'session'; anonymous: Req; status: number };

const MUTATING_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

const taskPath = (id: number | string, suffix = '') => `/api/v1/tasks/${id}${suffix}`;

/** One entry per route pattern; HEAD routes follow their GET. */
const MATRIX: Record<string, Spec> = {
  'GET /api/v1/health': { kind: 'public', probe: { method: 'GET', path: '/api/v1/health' } },
  'GET /metrics': { kind: 'public', probe: { method: 'GET', path: '/metrics' } },
  'GET /': { kind: 'public', probe: { method: 'GET', path: '/' } },
  'GET /console': { kind: 'public', probe: { method: 'GET', path: '/console' } },
  'GET /console/*': { kind: 'public', probe: { method: 'GET', path: '/console/tasks/1' } },
  'GET /api/docs*': { kind: 'public', probe: { method: 'GET', path: '/api/docs/json' } },
  'GET /api/v1/me': { kind: 'any', request: () => ({ method: 'GET', path: '/api/v1/me' }), ok: 200 },

  'POST /api/v1/lists': {
    kind: 'account',
    foreign: () => ({ method: 'POST', path: '/api/v1/lists?accountId=globex', body: LIST_BYTES }),
    missing: () => ({ method: 'POST', path: '/api/v1/lists?accountId=nobody', body: LIST_BYTES }),
    ids: () => ['globex', 'nobody'],
    ok: 201,
  },
  'GET /api/v1/lists/:id': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: `/api/v1/lists/${seeded.globexList}` }),
    missing: () => ({ method: 'GET', path: '/api/v1/lists/l_nope' }),
    ids: () => [seeded.globexList, 'l_nope'],
    ok: 200,
  },
  'PUT /api/v1/accounts/:accountId/blacklist': {
    kind: 'account',
    foreign: () => ({ method: 'PUT', path: '/api/v1/accounts/globex/blacklist', body: LIST_BYTES }),
    missing: () => ({ method: 'PUT', path: '/api/v1/accounts/nobody/blacklist', body: LIST_BYTES }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  'GET /api/v1/accounts/:accountId/blacklist': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: '/api/v1/accounts/globex/blacklist' }),
    missing: () => ({ method: 'GET', path: '/api/v1/accounts/nobody/blacklist' }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  'DELETE /api/v1/accounts/:accountId/blacklist': {
    kind: 'account',
    foreign: () => ({ method: 'DELETE', path: '/api/v1/accounts/globex/blacklist' }),
    missing: () => ({ method: 'DELETE', path: '/api/v1/accounts/nobody/blacklist' }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  'PUT /api/v1/blacklists/global': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: '/api/v1/blacklists/global', body: LIST_BYTES }),
    ok: 200,
  },
  'GET /api/v1/blacklists/global': {
    kind: 'admin',
    request: () => ({ method: 'GET', path: '/api/v1/blacklists/global' }),
    ok: 200,
  },
  'DELETE /api/v1/blacklists/global': {
    kind: 'admin',
    request: () => ({ method: 'DELETE', path: '/api/v1/blacklists/global' }),
    ok: 200,
  },

  'POST /api/v1/tasks': {
    kind: 'account',
    foreign: () => ({
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId: 'globex', listId: seeded.globexList, content: { body: 'x' } },
    }),
    missing: () => ({
      method: 'POST',
      path: '/api/v1/tasks',
      body: { accountId: 'acme', listId: 'l_nope', content: { body: 'x' } },
    }),
    ids: () => ['globex', seeded.globexList, 'acme', 'l_nope'],
    ok: 201,
  },
  'GET /api/v1/tasks': { kind: 'listing', request: () => ({ method: 'GET', path: '/api/v1/tasks' }) },
  'GET /api/v1/tasks/:id': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: taskPath(seeded.globexTask.id) }),
    missing: () => ({ method: 'GET', path: taskPath(999_999) }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    ok: 200,
  },
  'GET /api/v1/tasks/:id/progress': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: taskPath(seeded.globexTask.id, '/progress') }),
    missing: () => ({ method: 'GET', path: taskPath(999_999, '/progress') }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    ok: 200,
  },
  'GET /api/v1/tasks/:id/report': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: taskPath(seeded.globexTask.id, '/report') }),
    missing: () => ({ method: 'GET', path: taskPath(999_999, '/report') }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    // A CREATED task has not filtered its list: 409 shows the request got past the access check.
    ok: 409,
  },
  'GET /api/v1/tasks/:id/funnel': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: taskPath(seeded.globexTask.id, '/funnel') }),
    missing: () => ({ method: 'GET', path: taskPath(999_999, '/funnel') }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    // A CREATED task answers what it can (its audience): 200.
    ok: 200,
  },
  'GET /api/v1/tasks/:id/recipients/:uin': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: taskPath(seeded.globexTask.id, '/recipients/7') }),
    missing: () => ({ method: 'GET', path: taskPath(999_999, '/recipients/7') }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    // A CREATED task has not filtered its list: 409 shows the request got past the access check.
    ok: 409,
  },
  // A mutation of the task's own, as cancel is.
  'DELETE /api/v1/tasks/:id/records': {
    kind: 'account',
    foreign: () => ({ method: 'DELETE', path: taskPath(seeded.globexTask.id, '/records') }),
    missing: () => ({ method: 'DELETE', path: taskPath(999_999, '/records') }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    // A CREATED task is not over: 409 TASK_NOT_OVER shows the request got past the access check.
    ok: 409,
  },
  'GET /api/v1/recipients/:uin/history': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: '/api/v1/recipients/7/history?accountId=globex' }),
    missing: () => ({ method: 'GET', path: '/api/v1/recipients/7/history?accountId=nobody' }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  ...Object.fromEntries(
    (
      [
        ['pause', 202],
        ['cancel', 202],
        // A CREATED task cannot resume: 409 shows the request got past the access check.
        ['resume', 409],
        // Nor is it a canary sampling or paused by its canary: 409, past the access check.
        ['promote', 409],
      ] as const
    ).map(([command, ok]) => [
      `POST /api/v1/tasks/:id/${command}`,
      {
        kind: 'account',
        foreign: () => ({ method: 'POST', path: taskPath(seeded.globexTask.id, `/${command}`) }),
        missing: () => ({ method: 'POST', path: taskPath(999_999, `/${command}`) }),
        ids: () => [String(seeded.globexTask.id), '999999'],
        ok,
      } satisfies Spec,
    ]),
  ),

  // An app backend's click report: access as for the task.
  'POST /api/v1/tasks/:id/engagement': {
    kind: 'account',
    foreign: () => ({ method: 'POST', path: taskPath(seeded.globexTask.id, '/engagement'), body: { clicks: 1 } }),
    missing: () => ({ method: 'POST', path: taskPath(999_999, '/engagement'), body: { clicks: 1 } }),
    ids: () => [String(seeded.globexTask.id), '999999'],
    ok: 200,
  },

  'GET /api/v1/templates/preview': {
    kind: 'any',
    request: () => ({
      method: 'GET',
      path: `/api/v1/templates/preview?body=${encodeURIComponent('Hi {{region|default:"you"}}')}&uin=7`,
    }),
    ok: 200,
  },
  'GET /api/v1/campaigns/preview': {
    kind: 'any',
    request: () => ({ method: 'GET', path: '/api/v1/campaigns/preview?cron=0%209%20*%20*%20*&timeZone=UTC' }),
    ok: 200,
  },
  'GET /api/v1/campaigns': { kind: 'listing', request: () => ({ method: 'GET', path: '/api/v1/campaigns' }) },
  'POST /api/v1/campaigns': {
    kind: 'account',
    foreign: () => ({ method: 'POST', path: '/api/v1/campaigns', body: campaignBody('globex', seeded.globexList) }),
    missing: () => ({ method: 'POST', path: '/api/v1/campaigns', body: campaignBody('acme', 'l_nope') }),
    ids: () => ['globex', seeded.globexList, 'acme', 'l_nope'],
    ok: 201,
  },
  ...Object.fromEntries(
    (
      [
        ['GET', '', undefined, 200],
        ['PATCH', '', { name: 'renamed' }, 200],
        ['POST', '/enable', undefined, 200],
        ['POST', '/disable', undefined, 200],
        ['POST', '/run', undefined, 201],
        ['GET', '/firings', undefined, 200],
      ] as const
    ).map(([method, suffix, body, ok]) => [
      `${method} /api/v1/campaigns/:id${suffix}`,
      {
        kind: 'account',
        foreign: () => ({
          method,
          path: `/api/v1/campaigns/${seeded.globexCampaign}${suffix}`,
          ...(body === undefined ? {} : { body }),
        }),
        missing: () => ({ method, path: `/api/v1/campaigns/999999${suffix}`, ...(body === undefined ? {} : { body }) }),
        ids: () => [String(seeded.globexCampaign), '999999'],
        ok,
      } satisfies Spec,
    ]),
  ),
  'DELETE /api/v1/campaigns/:id': {
    kind: 'account',
    // Each call deletes its own campaign of globex's.
    foreign: async () => {
      seeded.deleted = (
        await server.call(admin, {
          method: 'POST',
          path: '/api/v1/campaigns',
          body: campaignBody('globex', seeded.globexList),
        })
      ).body.id as number;
      return { method: 'DELETE', path: `/api/v1/campaigns/${seeded.deleted}` };
    },
    missing: () => ({ method: 'DELETE', path: '/api/v1/campaigns/999999' }),
    ids: () => [String(seeded.deleted), '999999'],
    ok: 204,
  },
  'GET /api/v1/accounts/:accountId/limits': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: '/api/v1/accounts/globex/limits' }),
    missing: () => ({ method: 'GET', path: '/api/v1/accounts/nobody/limits' }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  // Generous values: the matrix creates globex's tasks too.
  'PUT /api/v1/accounts/:accountId/limits': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: '/api/v1/accounts/globex/limits', body: { dailyBroadcasts: 1000 } }),
    ok: 200,
  },
  'PUT /api/v1/accounts/:accountId/click-through-rate': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: '/api/v1/accounts/globex/click-through-rate', body: { rate: 0.05 } }),
    ok: 200,
  },
  'GET /api/v1/accounts/:accountId/local-time': {
    kind: 'account',
    foreign: () => ({ method: 'GET', path: '/api/v1/accounts/globex/local-time' }),
    missing: () => ({ method: 'GET', path: '/api/v1/accounts/nobody/local-time' }),
    ids: () => ['globex', 'nobody'],
    ok: 200,
  },
  'PUT /api/v1/accounts/:accountId/local-time': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: '/api/v1/accounts/globex/local-time', body: { defaultTimeZone: 'UTC' } }),
    ok: 200,
  },
  'GET /api/v1/cluster': { kind: 'admin', request: () => ({ method: 'GET', path: '/api/v1/cluster' }), ok: 200 },
  'GET /api/v1/channels': { kind: 'admin', request: () => ({ method: 'GET', path: '/api/v1/channels' }), ok: 200 },
  'PUT /api/v1/channels/:channel/limits': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: '/api/v1/channels/webhook/limits', body: { maxRate: 1000 } }),
    ok: 200,
  },
  'PUT /api/v1/devices/:token': {
    kind: 'admin',
    request: () => ({ method: 'PUT', path: `/api/v1/devices/${fcmToken(1)}`, body: { uin: 5, platform: 'fcm' } }),
    ok: 200,
  },
  'DELETE /api/v1/devices/:token': {
    kind: 'admin',
    request: () => ({ method: 'DELETE', path: `/api/v1/devices/${fcmToken(1)}` }),
    ok: 200,
  },
  'GET /api/v1/recipients/:uin/devices': {
    kind: 'admin',
    request: () => ({ method: 'GET', path: '/api/v1/recipients/5/devices' }),
    ok: 200,
  },
  'POST /api/v1/tokens': {
    kind: 'admin',
    request: () => ({
      method: 'POST',
      path: '/api/v1/tokens',
      body: { name: 'made by the matrix', role: 'operator', accounts: ['acme'] },
    }),
    ok: 201,
  },
  'GET /api/v1/tokens': { kind: 'admin', request: () => ({ method: 'GET', path: '/api/v1/tokens' }), ok: 200 },
  'DELETE /api/v1/tokens/:id': {
    kind: 'admin',
    request: async () => {
      const throwaway = await tokens.token('operator', ['acme'], 'throwaway');
      return { method: 'DELETE', path: `/api/v1/tokens/${throwaway.split('_')[1]}` };
    },
    ok: 200,
  },
  'GET /api/v1/audit': { kind: 'admin', request: () => ({ method: 'GET', path: '/api/v1/audit' }), ok: 200 },
  'POST /api/v1/session': {
    kind: 'session',
    anonymous: { method: 'POST', path: '/api/v1/session', body: { token: `hrd_abcd_${'x'.repeat(43)}` } },
    status: 401,
  },
  'DELETE /api/v1/session': { kind: 'session', anonymous: { method: 'DELETE', path: '/api/v1/session' }, status: 204 },
};

/** Patterns that stand for routes whose exact paths depend on what is built (the console's files, the API docs). */
function matrixKey(method: string, url: string): string {
  if (url.startsWith('/console/') && url !== '/console/*') return `${method} /console/*`;
  if (url === '/api/docs' || url.startsWith('/api/docs/')) return `${method} /api/docs*`;
  return `${method} ${url}`;
}

/** An error body with the named ids replaced, so a foreign and a missing resource's answers compare. */
function shape(answer: Answer, ids: string[]): unknown {
  const longestFirst = [...ids].sort((a, b) => b.length - a.length);
  const blank = (value: unknown): unknown => {
    if (typeof value === 'number' && ids.includes(String(value))) return '<id>';
    if (typeof value === 'string') return longestFirst.reduce((text, id) => text.split(id).join('<id>'), value);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blank(v)]));
    return value;
  };
  return { status: answer.status, error: blank(answer.body.error) };
}

function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
  expect(typeof answer.body.error?.message).toBe('string');
}

describe('the authorization matrix', () => {
  const routes = () => routesOf(server.app).filter((r) => r.method !== 'HEAD');

  it('has an entry for every route the server registers, and every entry names a registered route', () => {
    const registered = new Set(routes().map((r) => matrixKey(r.method, r.url)));
    const missing = [...registered].filter((key) => MATRIX[key] === undefined);
    expect(missing).toEqual([]);
    expect(Object.keys(MATRIX).filter((key) => !registered.has(key))).toEqual([]);
    expect(registered.size).toBeGreaterThan(15);
  });

  it('asks for a token on every route but the public reads, and public routes are reads', async () => {
    for (const route of routesOf(server.app)) {
      const spec = MATRIX[matrixKey(route.method === 'HEAD' ? 'GET' : route.method, route.url)];
      if (spec === undefined) continue; // the test above fails for it
      if (spec.kind === 'public') {
        expect(['GET', 'HEAD']).toContain(route.method);
        const answer = await server.call(undefined, spec.probe);
        expect({ route: `${route.method} ${route.url}`, status: answer.status }).not.toMatchObject({ status: 401 });
        continue;
      }
      if (spec.kind === 'session') {
        expect(MUTATING_METHODS).toContain(route.method);
        expect({
          route: `${route.method} ${route.url}`,
          status: (await server.call(undefined, spec.anonymous)).status,
        }).toEqual({ route: `${route.method} ${route.url}`, status: spec.status });
        continue;
      }
      const req =
        spec.kind === 'account' ? await spec.foreign() : spec.kind === 'admin' ? await spec.request() : spec.request();
      const method = route.method === 'HEAD' ? 'HEAD' : req.method;
      for (const token of [undefined, 'not-a-token', `hrd_${'abcd'}_${'x'.repeat(43)}`]) {
        const answer = await server.call(token, { ...req, method });
        expect({ route: `${route.method} ${route.url}`, status: answer.status }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 401,
        });
        if (method !== 'HEAD') expect(answer.body.error?.code).toBe(ErrorCodes.UNAUTHENTICATED);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
  });

  describe.each(Object.entries(MATRIX).filter(([, spec]) => spec.kind === 'account'))('%s', (_key, spec) => {
    if (spec.kind !== 'account') return;

    it("answers acme's operator on globex's resource exactly as on a missing one", async () => {
      const foreign = await server.call(acmeOps, await spec.foreign());
      const missing = await server.call(acmeOps, spec.missing());
      expect(foreign.status).toBe(404);
      expect(shape(foreign, spec.ids())).toEqual(shape(missing, spec.ids()));
      // And exactly as an admin sees the missing one, where a missing one is an error for an admin too
      // (accounts are no records: an admin may upload for any account id).
      const adminMissing = await server.call(admin, spec.missing());
      if (adminMissing.status >= 400) expect(shape(foreign, spec.ids())).toEqual(shape(adminMissing, spec.ids()));
    });

    it("lets globex's operator and an admin at globex's resource", async () => {
      expect((await server.call(globexOps, await spec.foreign())).status).toBe(spec.ok);
      expect((await server.call(admin, await spec.foreign())).status).toBe(spec.ok);
    });
  });

  describe.each(Object.entries(MATRIX).filter(([, spec]) => spec.kind === 'admin'))('%s', (_key, spec) => {
    if (spec.kind !== 'admin') return;

    it('refuses every operator with 403 FORBIDDEN and lets an admin in', async () => {
      for (const operator of [acmeOps, globexOps])
        expectError(await server.call(operator, await spec.request()), 403, ErrorCodes.FORBIDDEN);
      expect((await server.call(admin, await spec.request())).status).toBe(spec.ok);
    });
  });

  it('GET /api/v1/me answers each caller with itself, never a secret', async () => {
    const me = (await server.call(acmeOps, { method: 'GET', path: '/api/v1/me' })).body;
    expect(me).toEqual({ tokenId: acmeOps.split('_')[1], name: 'acme ops', role: 'operator', accounts: ['acme'] });
    expect((await server.call(admin, { method: 'GET', path: '/api/v1/me' })).body).toEqual({
      tokenId: 'testadmin',
      name: 'test admin',
      role: 'admin',
      accounts: [],
    });
  });

  it("GET /api/v1/tasks leaves other accounts' tasks out: unfiltered, filtered by a foreign account, and for an operator of several accounts", async () => {
    const ids = async (token: string, query = '') =>
      (
        (await server.call(token, { method: 'GET', path: `/api/v1/tasks?limit=1000${query}` })).body.tasks as Task[]
      ).map((t) => t.accountId);
    expect(new Set(await ids(acmeOps))).toEqual(new Set(['acme']));
    expect(await ids(acmeOps, '&accountId=globex')).toEqual([]);
    expect((await server.call(acmeOps, { method: 'GET', path: '/api/v1/tasks?accountId=globex' })).body).toEqual({
      tasks: [],
      nextCursor: null,
    });
    expect(new Set(await ids(globexOps))).toEqual(new Set(['globex']));
    expect(new Set(await ids(admin))).toEqual(new Set(['acme', 'globex']));
    const both = await tokens.token('operator', ['acme', 'globex']);
    expect(new Set(await ids(both))).toEqual(new Set(['acme', 'globex']));
    expect(new Set(await ids(both, '&accountId=acme'))).toEqual(new Set(['acme']));
  });

  it("GET /api/v1/campaigns leaves other accounts' campaigns out", async () => {
    await server.call(admin, {
      method: 'POST',
      path: '/api/v1/campaigns',
      body: campaignBody('acme', seeded.acmeList),
    });
    const accounts = async (token: string, query = '') =>
      new Set(
        (
          (await server.call(token, { method: 'GET', path: `/api/v1/campaigns?limit=1000${query}` })).body
            .campaigns as { accountId: string }[]
        ).map((c) => c.accountId),
      );
    expect(await accounts(acmeOps)).toEqual(new Set(['acme']));
    expect(await accounts(acmeOps, '&accountId=globex')).toEqual(new Set());
    expect(await accounts(globexOps)).toEqual(new Set(['globex']));
    expect(await accounts(admin)).toEqual(new Set(['acme', 'globex']));
  });

  it('answers the management endpoints with 404 on the public listener, token or not', async () => {
    for (const token of [undefined, admin]) {
      for (const req of [
        { method: 'GET', path: '/status' },
        { method: 'POST', path: '/drain' },
        { method: 'POST', path: '/faults/traffic-cut', body: { cut: true } },
        { method: 'GET', path: '/faults' },
      ]) {
        expectError(await server.call(token, req), 404, ErrorCodes.NOT_FOUND);
      }
    }
  });
});

describe('the audit log', () => {
  async function entriesOf(tokenId: string): Promise<AuditEntry[]> {
    return (await server.call(admin, { method: 'GET', path: `/api/v1/audit?tokenId=${tokenId}&limit=1000` })).body
      .entries as AuditEntry[];
  }

  it('holds every mutation of a verified caller, refused ones with their status and the account they named; no reads, no 401s', async () => {
    const ops = await tokens.token('operator', ['acme'], 'audited ops');
    const tokenId = ops.split('_')[1]!;
    expect(TOKEN_ID_PATTERN.test(tokenId)).toBe(true);
    const before = Date.now();
    await server.call(ops, { method: 'POST', path: taskPath(seeded.acmeTask.id, '/pause') });
    await server.call(ops, { method: 'POST', path: taskPath(seeded.globexTask.id, '/cancel') });
    await server.call(ops, { method: 'POST', path: '/api/v1/lists?accountId=globex', body: LIST_BYTES });
    await server.call(ops, { method: 'GET', path: taskPath(seeded.acmeTask.id) });
    await server.call(ops, { method: 'DELETE', path: '/api/v1/tokens/abcd' });
    await server.call(undefined, { method: 'POST', path: taskPath(seeded.acmeTask.id, '/cancel') });
    const created = (
      await server.call(ops, {
        method: 'POST',
        path: '/api/v1/tasks',
        body: { accountId: 'acme', listId: seeded.acmeList, content: { body: 'audited' } },
      })
    ).body as unknown as Task;

    const entries = await entriesOf(tokenId);
    expect(entries.map(({ id: _id, at: _at, ...rest }) => rest)).toEqual([
      {
        tokenId,
        tokenName: 'audited ops',
        action: 'POST /api/v1/tasks',
        accountId: 'acme',
        resource: `task:${created.id}`,
        status: 201,
      },
      {
        tokenId,
        tokenName: 'audited ops',
        action: 'DELETE /api/v1/tokens/:id',
        accountId: null,
        resource: 'token:abcd',
        status: 403,
      },
      {
        tokenId,
        tokenName: 'audited ops',
        action: 'POST /api/v1/lists',
        accountId: 'globex',
        resource: '/api/v1/lists',
        status: 404,
      },
      {
        tokenId,
        tokenName: 'audited ops',
        action: 'POST /api/v1/tasks/:id/cancel',
        accountId: 'globex',
        resource: `task:${seeded.globexTask.id}`,
        status: 404,
      },
      {
        tokenId,
        tokenName: 'audited ops',
        action: 'POST /api/v1/tasks/:id/pause',
        accountId: 'acme',
        resource: `task:${seeded.acmeTask.id}`,
        status: 202,
      },
    ]);
    for (const entry of entries) expect(entry.at).toBeGreaterThanOrEqual(before);
  });

  it('filters by account for an admin', async () => {
    const entries = (await server.call(admin, { method: 'GET', path: '/api/v1/audit?accountId=globex&limit=1000' }))
      .body.entries as AuditEntry[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.accountId).toBe('globex');
  });
});
