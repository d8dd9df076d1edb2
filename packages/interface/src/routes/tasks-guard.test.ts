/**
 * Guard rails proportional to reach, over real HTTP on real Level stores: a
 * broadcast over its account's confirmAbove that starts within
 * confirmWithinMs needs `"confirm": <list.count>` (409 CONFIRMATION_REQUIRED
 * otherwise, nothing created or held), and `?dryRun=true` validates like a
 * create and creates nothing. The end-to-end counts of a dry run are checked
 * on each profile (packages/embedded/test/guard-rails.test.ts, the production
 * cluster test).
 */
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import type { LevelTaskStore } from '@herald/store-level';
import type { Message } from '@herald/transport';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type TestServer } from '../access/test-server.test-util';

const BIG = 1_000_001;
const HOUR = 3_600_000;

let server: TestServer;
let tasks: LevelTaskStore;
let tokens: TestAccess;
let base: string;
let submitted: Message[];

async function start(options: HeraldOptions = {}) {
  tokens = await openTestAccess();
  server = await startTestServer({ access: tokens.access, config: options });
  ({ store: tasks, base, sent: submitted } = server);
  await tasks.putList({
    id: 'l_big',
    accountId: 'acme',
    count: BIG,
    checksum: 1,
    sorted: true,
    unique: true,
    bytes: BIG * 4,
    createdAt: 0,
  });
  await tasks.putList({
    id: 'l_small',
    accountId: 'acme',
    count: 10,
    checksum: 1,
    sorted: true,
    unique: true,
    bytes: 40,
    createdAt: 0,
  });
}

async function stop() {
  await server.close();
  await tokens.close();
}

afterEach(stop);

async function call(method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tokens.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const big = { accountId: 'acme', listId: 'l_big', content: { body: 'Hello' } };

/** What a refused or dry request must leave as it was: tasks, hand-overs, the quota's usage. */
async function nothingCreated() {
  expect((await tasks.listTasks()).tasks).toEqual([]);
  expect(submitted).toEqual([]);
  expect((await call('GET', '/api/v1/accounts/acme/limits')).body.usage).toEqual({ broadcasts: 0, recipients: 0 });
}

describe('confirmation of a broadcast that reaches many soon', () => {
  it('refuses it without confirm (409 CONFIRMATION_REQUIRED, nothing created or held), then creates it with confirm', async () => {
    await start();
    const refused = await call('POST', '/api/v1/tasks', big);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        code: 'CONFIRMATION_REQUIRED',
        message: `this broadcast reaches ${BIG} recipients and starts within 60 minutes: send it again with "confirm": ${BIG}`,
        details: { field: 'confirm', recipients: BIG, threshold: 1_000_000 },
      },
    });
    await nothingCreated();
    const created = await call('POST', '/api/v1/tasks', { ...big, confirm: BIG });
    expect(created.status).toBe(201);
    expect(submitted).toEqual([{ kind: 'task.submitted', taskId: created.body.id }]);
  });

  it('refuses a confirm that is not the recipient count', async () => {
    await start();
    const wrong = await call('POST', '/api/v1/tasks', { ...big, confirm: BIG - 1 });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      details: { field: 'confirm', recipients: BIG },
    });
    await nothingCreated();
  });

  it('asks nothing of a broadcast at the threshold, or one that starts after the window', async () => {
    await start({ accounts: { defaultLimits: { confirmAbove: BIG } } });
    expect((await call('POST', '/api/v1/tasks', big)).status).toBe(201);
    await stop();
    await start();
    const later = new Date(Date.now() + 2 * HOUR).toISOString();
    expect((await call('POST', '/api/v1/tasks', { ...big, sendAt: later })).status).toBe(201);
  });

  it("follows the account's own confirmAbove and confirmWithinMs (PUT limits)", async () => {
    await start();
    const put = await call('PUT', '/api/v1/accounts/acme/limits', { confirmAbove: 5, confirmWithinMs: 4 * HOUR });
    expect(put.status).toBe(200);
    expect(put.body.confirmation).toEqual({ confirmAbove: 5, confirmWithinMs: 4 * HOUR });
    const small = {
      accountId: 'acme',
      listId: 'l_small',
      content: { body: 'Hi' },
      sendAt: new Date(Date.now() + 2 * HOUR).toISOString(),
    };
    const refused = await call('POST', '/api/v1/tasks', small);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('starts within 4 hours');
    expect((await call('POST', '/api/v1/tasks', { ...small, confirm: 10 })).status).toBe(201);
  });
});

describe('POST /api/v1/tasks?dryRun=true', () => {
  it('answers what would happen and creates nothing: no task, no hand-over, no quota, no idempotency record', async () => {
    await start();
    const dry = await call(
      'POST',
      '/api/v1/tasks?dryRun=true',
      { ...big, speed: undefined },
      { 'idempotency-key': 'dry-1' },
    );
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      confirmationRequired: true,
      recipients: { listed: BIG },
      estimatedSendMs: null,
    });
    expect(dry.body.expiresAt - dry.body.sendAt).toBe(compileConfig().tasks.defaultTtlMs);
    await nothingCreated();
    expect(await tasks.getTaskByIdempotencyKey('api:acme:dry-1')).toBeUndefined();
    // The same key then creates the task: the dry run left no record behind to answer with.
    expect((await call('POST', '/api/v1/tasks', { ...big, confirm: BIG }, { 'idempotency-key': 'dry-1' })).status).toBe(
      201,
    );
  });

  it('reports confirmationRequired false below the threshold', async () => {
    await start();
    const dry = await call('POST', '/api/v1/tasks?dryRun=true', {
      accountId: 'acme',
      listId: 'l_small',
      content: { body: 'Hi' },
    });
    expect(dry.body).toMatchObject({ dryRun: true, confirmationRequired: false, recipients: { listed: 10 } });
  });

  it('fails as a create would: a quota the broadcast is over, a missing list', async () => {
    await start();
    await call('PUT', '/api/v1/accounts/acme/limits', { dailyBroadcasts: 0 });
    const quota = await call('POST', '/api/v1/tasks?dryRun=true', big);
    expect(quota.status).toBe(422);
    expect(quota.body.error.code).toBe('ACCOUNT_QUOTA_EXCEEDED');
    const missing = await call('POST', '/api/v1/tasks?dryRun=true', { ...big, listId: 'l_none' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('LIST_NOT_FOUND');
    await nothingCreated();
  });

  it('refuses a dryRun that is not a boolean, naming it', async () => {
    await start();
    const bad = await call('POST', '/api/v1/tasks?dryRun=yes', big);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'dryRun' } });
  });
});
