/**
 * The guard's behaviour in time and under failure: per-token rate limits,
 * how soon a revocation takes effect, what a failed audit append does, and
 * the token endpoints end to end. The clock is injected: nothing here waits.
 */
import { ConfigError, ErrorCodes } from '@herald/core';
import { noopLogger, type AccessStore, type Logger, type Meter } from '@herald/core/ports';
import { ensureBootstrapAdmin } from './bootstrap';
import { openTestAccess, type TestAccess } from './test-access.test-util';
import { startTestServer, type TestServer } from './test-server.test-util';

let tokens: TestAccess;
const servers: TestServer[] = [];
let now = 1_700_000_000_000;
const clock = { now: () => now };

beforeEach(async () => {
  tokens = await openTestAccess();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await tokens.close();
});

async function start(options: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

const me = { method: 'GET', path: '/api/v1/me' };

describe('rate limit', () => {
  it('refuses a token past its burst with 429 RATE_LIMITED and Retry-After, leaves other tokens alone, and refills with time', async () => {
    const server = await start({
      access: tokens.access,
      clock,
      config: { auth: { rateLimit: { perSecond: 1, burst: 2 } } },
    });
    const ops = await tokens.token('operator', ['acme']);
    expect((await server.call(tokens.adminToken, me)).status).toBe(200);
    expect((await server.call(tokens.adminToken, me)).status).toBe(200);
    const refused = await server.call(tokens.adminToken, me);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: ErrorCodes.RATE_LIMITED, details: { retryAfterMs: 1000 } });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await server.call(ops, me)).status).toBe(200);
    now += 999;
    expect((await server.call(tokens.adminToken, me)).status).toBe(429);
    now += 1;
    expect((await server.call(tokens.adminToken, me)).status).toBe(200);
  });

  it('does not audit a rate-limited mutation (no handler ran) and does not limit public routes', async () => {
    const server = await start({
      access: tokens.access,
      clock,
      config: { auth: { rateLimit: { perSecond: 1, burst: 1 } } },
    });
    const ops = await tokens.token('operator', ['acme'], 'limited');
    expect((await server.call(ops, { method: 'POST', path: '/api/v1/tasks/1/pause' })).status).toBe(404);
    expect((await server.call(ops, { method: 'POST', path: '/api/v1/tasks/1/pause' })).status).toBe(429);
    const entries = (await tokens.access.listAudit({ tokenId: ops.split('_')[1] })).entries;
    expect(entries.map((e) => e.status)).toEqual([404]);
    for (let i = 0; i < 5; i++)
      expect((await server.call(undefined, { method: 'GET', path: '/api/v1/health' })).status).toBe(200);
  });
});

describe('revocation', () => {
  it('takes effect at once on the process that revoked, and within auth.tokenCacheMs on another', async () => {
    const config = { auth: { tokenCacheMs: 5000, rateLimit: { perSecond: 0 } } };
    const one = await start({ access: tokens.access, clock, config });
    const other = await start({ access: tokens.access, clock, config });
    const ops = await tokens.token('operator', ['acme']);
    const verifiedAt = now;
    expect((await one.call(ops, me)).status).toBe(200);
    expect((await other.call(ops, me)).status).toBe(200);
    expect(
      (await one.call(tokens.adminToken, { method: 'DELETE', path: `/api/v1/tokens/${ops.split('_')[1]}` })).body,
    ).toMatchObject({ revokedAt: now });
    expect((await one.call(ops, me)).status).toBe(401);
    now = verifiedAt + 4999;
    expect((await other.call(ops, me)).status).toBe(200);
    now = verifiedAt + 5000;
    const refused = await other.call(ops, me);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe(ErrorCodes.UNAUTHENTICATED);
  });

  it('with tokenCacheMs 0 asks the store on every request', async () => {
    const server = await start({ access: tokens.access, clock, config: { auth: { tokenCacheMs: 0 } } });
    const ops = await tokens.token('operator', ['acme']);
    expect((await server.call(ops, me)).status).toBe(200);
    await tokens.access.revokeToken(ops.split('_')[1]!, now);
    expect((await server.call(ops, me)).status).toBe(401);
  });
});

describe('a failed audit append', () => {
  it('still answers the request, logs the whole entry at error level and counts it', async () => {
    const failing: AccessStore = new Proxy(tokens.access, {
      get: (target, property, receiver) =>
        property === 'appendAudit'
          ? () => Promise.reject(new Error('disk full'))
          : (Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown).bind(target),
    });
    const errors: Record<string, unknown>[] = [];
    const logger: Logger = { ...noopLogger, error: (message, fields) => void errors.push({ message, ...fields }) };
    const counts = new Map<string, number>();
    const meter: Meter = {
      counter: (name) => ({ inc: () => void counts.set(name, (counts.get(name) ?? 0) + 1) }),
      gauge: () => ({ set() {} }),
      histogram: () => ({ observe() {} }),
    };
    const server = await start({ access: failing, clock, logger, meter });
    const answer = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: { name: 'n', role: 'admin' },
    });
    expect(answer.status).toBe(201);
    expect(counts.get('herald_audit_append_failures_total')).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('audit append failed'),
        audit: expect.objectContaining({ tokenId: 'testadmin', action: 'POST /api/v1/tokens', status: 201, at: now }),
        error: 'Error: disk full',
      }),
    ]);
  });
});

describe('the token endpoints', () => {
  it('make a token shown once that works at once, list tokens without secrets, and revoke', async () => {
    const server = await start({ access: tokens.access, clock });
    const made = await server.call(tokens.adminToken, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: { name: 'night shift', role: 'operator', accounts: ['acme', 'globex'] },
    });
    expect(made.status).toBe(201);
    const token = made.body.token as string;
    expect(token).toMatch(/^hrd_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(made.body).toEqual({
      id: token.split('_')[1],
      name: 'night shift',
      role: 'operator',
      accounts: ['acme', 'globex'],
      createdAt: now,
      revokedAt: null,
      token,
    });
    expect((await server.call(token, me)).body).toEqual({
      tokenId: made.body.id,
      name: 'night shift',
      role: 'operator',
      accounts: ['acme', 'globex'],
    });

    const listed = await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/tokens' });
    const secret = token.slice(`hrd_${String(made.body.id)}_`.length);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(listed.body.tokens).toContainEqual({
      id: made.body.id,
      name: 'night shift',
      role: 'operator',
      accounts: ['acme', 'globex'],
      createdAt: now,
      revokedAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toMatch(/"hash"/);

    expect(
      (await server.call(tokens.adminToken, { method: 'DELETE', path: `/api/v1/tokens/${String(made.body.id)}` })).body,
    ).toMatchObject({ id: made.body.id, revokedAt: now });
    expect((await server.call(token, me)).status).toBe(401);
    const again = await server.call(tokens.adminToken, { method: 'DELETE', path: '/api/v1/tokens/ffffffff' });
    expect({ status: again.status, code: again.body.error?.code }).toEqual({
      status: 404,
      code: ErrorCodes.TOKEN_NOT_FOUND,
    });
  });

  it('list tokens oldest first a page at a time, by limit and cursor', async () => {
    const server = await start({ access: tokens.access, clock });
    for (const name of ['a', 'b', 'c'])
      expect(
        (
          await server.call(tokens.adminToken, {
            method: 'POST',
            path: '/api/v1/tokens',
            body: { name, role: 'admin' },
          })
        ).status,
      ).toBe(201);
    const all = await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/tokens' });
    const ids = (all.body.tokens as { id: string }[]).map((t) => t.id);
    expect(all.body.nextCursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await server.call(tokens.adminToken, {
        method: 'GET',
        path: `/api/v1/tokens?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      });
      expect(page.status).toBe(200);
      expect((page.body.tokens as unknown[]).length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.tokens as { id: string }[]).map((t) => t.id));
      cursor = page.body.nextCursor as string | null;
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    expect(ids.length).toBeGreaterThanOrEqual(4); // the test's own admin token and the three made here
    for (const bad of ['limit=0', 'limit=1001', 'cursor=x'])
      expect((await server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/tokens?${bad}` })).status).toBe(400);
  });

  it.each([
    ['an admin naming accounts', { name: 'x', role: 'admin', accounts: ['acme'] }],
    ['an operator without accounts', { name: 'x', role: 'operator' }],
    ['an unknown role', { name: 'x', role: 'root' }],
    ['a bad account id', { name: 'x', role: 'operator', accounts: ['ACME'] }],
    ['a repeated account', { name: 'x', role: 'operator', accounts: ['acme', 'acme'] }],
    ['a blank name', { name: '  ', role: 'admin' }],
  ])('refuse %s with 400 VALIDATION_FAILED', async (_name, body) => {
    const server = await start({ access: tokens.access, clock });
    const answer = await server.call(tokens.adminToken, { method: 'POST', path: '/api/v1/tokens', body });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 400,
      code: ErrorCodes.VALIDATION_FAILED,
    });
  });

  it('page the audit log newest first by cursor', async () => {
    const server = await start({ access: tokens.access, clock });
    for (let i = 0; i < 5; i++)
      await server.call(tokens.adminToken, { method: 'POST', path: `/api/v1/tasks/${i + 1}/pause` });
    const first = await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/audit?limit=2' });
    const entries = first.body.entries as { id: number; resource: string }[];
    expect(entries.map((e) => e.resource)).toEqual(['task:5', 'task:4']);
    expect(first.body.nextCursor).toBe(entries[1]!.id);
    const second = await server.call(tokens.adminToken, {
      method: 'GET',
      path: `/api/v1/audit?limit=2&cursor=${String(first.body.nextCursor)}`,
    });
    expect((second.body.entries as { resource: string }[]).map((e) => e.resource)).toEqual(['task:3', 'task:2']);
  });

  it('list the audit log in a time window, from inclusive, to exclusive, offsets honoured', async () => {
    const server = await start({ access: tokens.access, clock });
    const start0 = Date.UTC(2027, 5, 1, 10, 0, 0);
    for (let minute = 0; minute < 4; minute++) {
      now = start0 + minute * 60_000;
      await server.call(tokens.adminToken, { method: 'POST', path: `/api/v1/tasks/${minute + 1}/pause` });
    }
    const window = async (from: string, to: string) =>
      (
        (
          await server.call(tokens.adminToken, {
            method: 'GET',
            path: `/api/v1/audit?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
          })
        ).body.entries as { resource: string }[]
      ).map((e) => e.resource);
    expect(await window('2027-06-01T10:01:00Z', '2027-06-01T10:03:00Z')).toEqual(['task:3', 'task:2']);
    expect(await window('2027-06-01T12:02:00+02:00', '2027-06-01T12:10:00+02:00')).toEqual(['task:4', 'task:3']);
  });

  it.each([
    ['from', 'from=2027-02-30T00:00:00Z'],
    ['to', 'to=2027-06-01T25:00:00Z'],
    ['from', 'from=2027-06-01T10:00:00'],
    ['from', 'from=2027-06-02T00:00:00Z&to=2027-06-01T00:00:00Z'],
  ])('refuse a bad audit window naming %s: %s', async (field, search) => {
    const server = await start({ access: tokens.access, clock });
    const answer = await server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/audit?${search}` });
    expect({ status: answer.status, code: answer.body.error?.code, field: answer.body.error?.details?.field }).toEqual({
      status: 400,
      code: ErrorCodes.VALIDATION_FAILED,
      field,
    });
  });
});

describe('the bootstrap admin token', () => {
  const TOKEN = 'hrd_boot_bootstrap-secret-0123456789-abcdefgh';

  it('is stored hashed when the server gets ready, and works', async () => {
    const server = await start({ access: tokens.access, clock, config: { auth: { bootstrapAdminToken: TOKEN } } });
    expect((await server.call(TOKEN, me)).body).toEqual({
      tokenId: 'boot',
      name: 'bootstrap admin',
      role: 'admin',
      accounts: [],
    });
    const stored = await tokens.access.findToken('boot');
    expect(stored?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain('bootstrap-secret');
  });

  it('is left alone when it exists: a second start, concurrent starts, a revoked one stays revoked', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...noopLogger, warn: (message) => void warnings.push(message) };
    await Promise.all([1, 2, 3].map(() => ensureBootstrapAdmin(tokens.access, TOKEN, 10, logger)));
    await ensureBootstrapAdmin(tokens.access, TOKEN, 20, logger);
    expect((await tokens.access.listTokens()).filter((t) => t.id === 'boot')).toEqual([
      { id: 'boot', name: 'bootstrap admin', role: 'admin', accounts: [], createdAt: 10, revokedAt: null },
    ]);
    await tokens.access.revokeToken('boot', 30);
    await ensureBootstrapAdmin(tokens.access, TOKEN, 40, logger);
    expect(await tokens.access.findToken('boot')).toMatchObject({ revokedAt: 30 });
    expect(warnings).toEqual([expect.stringContaining('revoked')]);
  });

  it('refuses with a ConfigError, at start, an id that exists with another secret', async () => {
    await ensureBootstrapAdmin(tokens.access, TOKEN, 10, noopLogger);
    const other = 'hrd_boot_another-secret-0123456789-abcdefghijk';
    await expect(ensureBootstrapAdmin(tokens.access, other, 20, noopLogger)).rejects.toBeInstanceOf(ConfigError);
    await expect(
      startTestServer({ access: tokens.access, clock, config: { auth: { bootstrapAdminToken: other } } }),
    ).rejects.toMatchObject({ setting: 'auth.bootstrapAdminToken' });
  });
});
