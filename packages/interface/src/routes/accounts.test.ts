/**
 * B-side controls over real HTTP on real Level stores (docs/account-quotas.md):
 * POST /api/v1/tasks takes room in the account's quotas before it creates
 * anything (the N+1th broadcast of a day is 422 ACCOUNT_QUOTA_EXCEEDED and
 * nothing is created; a new day admits again; an Idempotency-Key retry never
 * counts twice; concurrent creations never pass the quota; a failed creation
 * gives its room back), and the /api/v1/accounts/:id routes show and set the
 * limits. The clock is injected: days pass without waiting.
 */
import type { AddressInfo } from 'node:net';
import { ListRepository } from '@herald/audience';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { HeraldError } from '@herald/core';
import { noopLogger, type TaskStore } from '@herald/core/ports';
import type { NewTask } from '@herald/core/task';
import { LevelAccountStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Message, PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2023-11-14T12:00:00Z. */
const NOON = 1_699_963_200_000;

let dir: TempDir;
let tasks: LevelTaskStore;
let accounts: LevelAccountStore;
let tokens: TestAccess;
let app: FastifyInstance | undefined;
let base: string;
let now: number;
/** When set, the next createTask fails with it (a store outage after the quota was taken). */
let failNextCreate: Error | undefined;
const submitted: Message[] = [];

beforeEach(async () => {
  submitted.length = 0;
  now = NOON;
  failNextCreate = undefined;
  dir = await makeTempDir('herald-interface-quotas-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  accounts = await LevelAccountStore.open(`${dir.path}/accounts`);
  tokens = await openTestAccess();
  for (const accountId of ['acme', 'globex']) {
    await tasks.putList({
      id: `l_${accountId}`,
      accountId,
      count: 10,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 80,
      createdAt: 0,
    });
  }
});

afterEach(async () => {
  await app?.close();
  app = undefined;
  await tokens.close();
  await accounts.close();
  await tasks.close();
  await dir.remove();
});

async function start(options: HeraldOptions['accounts'] = {}): Promise<void> {
  const store: TaskStore = new Proxy(tasks, {
    get(target, property, receiver) {
      if (property === 'createTask') {
        return async (input: NewTask, at: number) => {
          const failure = failNextCreate;
          failNextCreate = undefined;
          if (failure !== undefined) throw failure;
          return target.createTask(input, at);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  app = createApiServer({
    // Immediate tasks send at `now` (no undo window): the quota cases below reason about NOON itself.
    config: compileConfig({ auth: { rateLimit: { perSecond: 0 } }, accounts: options, tasks: { undoGraceMs: 0 } }),
    store,
    access: tokens.access,
    accounts,
    lists: new ListRepository(`${dir.path}/lists`),
    toScheduler: {
      send: async (message: Message) => void submitted.push(message),
      close: () => undefined,
    } as unknown as PushChannel,
    clock: { now: () => now },
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function call(method: string, path: string, body?: object, options: { key?: string; token?: string } = {}) {
  const headers = new Headers({ authorization: `Bearer ${options.token ?? tokens.adminToken}` });
  if (body !== undefined) headers.set('content-type', 'application/json');
  if (options.key !== undefined) headers.set('idempotency-key', options.key);
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const broadcast = (accountId = 'acme', extra: object = {}) => ({
  accountId,
  listId: `l_${accountId}`,
  content: { body: `hello ${accountId}` },
  ...extra,
});
const create = (body = broadcast(), key?: string) =>
  call('POST', '/api/v1/tasks', body, key === undefined ? {} : { key });
const taskCount = async () => (await tasks.listTasks({ limit: 1000 })).tasks.length;

describe('quotas at task creation', () => {
  it('refuses the N+1th broadcast of the day with 422 ACCOUNT_QUOTA_EXCEEDED and creates nothing; the next day admits again', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 2 } });
    expect((await create()).status).toBe(201);
    now += HOUR;
    expect((await create()).status).toBe(201);
    now += HOUR;
    const refused = await create();
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: {
        accountId: 'acme',
        limit: 'dailyBroadcasts',
        field: 'sendAt',
        max: 2,
        used: 2,
        requested: 1,
        retryAt: NOON + 12 * HOUR,
      },
    });
    expect(refused.body.error.message).toContain('daily quota of 2 broadcasts');
    expect(await taskCount()).toBe(2);
    expect(submitted).toHaveLength(2);
    // Another account has its own quota.
    expect((await create(broadcast('globex'))).status).toBe(201);

    now = NOON + 12 * HOUR; // midnight UTC: a new day
    expect((await create()).status).toBe(201);
    expect(await taskCount()).toBe(4);
  });

  it('counts a broadcast on the day of its send time, so tomorrow can be booked today', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 1 } });
    expect((await create()).status).toBe(201);
    const tomorrow = new Date(NOON + DAY).toISOString();
    expect((await create(broadcast('acme', { sendAt: tomorrow }))).status).toBe(201);
    expect((await create(broadcast('acme', { sendAt: tomorrow }))).body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: { retryAt: NOON + 36 * HOUR },
    });
  });

  it('never counts an Idempotency-Key retry twice, and a refused key may succeed once there is room', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 2 } });
    const first = await create(broadcast(), 'k1');
    expect(first.status).toBe(201);
    expect(await create(broadcast(), 'k1')).toMatchObject({ status: 200, body: { id: first.body.id } });
    expect(await create(broadcast(), 'k1')).toMatchObject({ status: 200 });
    expect((await create(broadcast(), 'k2')).status).toBe(201);
    expect((await create(broadcast(), 'k3')).status).toBe(422);
    // The refusal recorded nothing: with more room, the same key creates its task.
    expect((await call('PUT', '/api/v1/accounts/acme/limits', { dailyBroadcasts: 3 })).status).toBe(200);
    expect((await create(broadcast(), 'k3')).status).toBe(201);
    expect(await taskCount()).toBe(3);
  });

  it('gives the room back when the task cannot be created after all', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 1 } });
    failNextCreate = new HeraldError('UNAVAILABLE', 'the task store is down', { retriable: true });
    expect((await create()).status).toBe(503);
    expect((await call('GET', '/api/v1/accounts/acme/limits')).body.usage).toEqual({ broadcasts: 0, recipients: 0 });
    expect((await create()).status).toBe(201);
    // With a key too: the retry after the outage is admitted.
    failNextCreate = new HeraldError('UNAVAILABLE', 'the task store is down', { retriable: true });
    now += DAY;
    expect((await create(broadcast(), 'retry-me')).status).toBe(503);
    expect((await create(broadcast(), 'retry-me')).status).toBe(201);
  });

  it('never admits more concurrent creations than the quota', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 3 } });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(broadcast('acme', { content: { body: `race ${i}` } }))),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(9);
    expect(await taskCount()).toBe(3);
  });

  it('refuses a list over the daily recipients, naming listId', async () => {
    await start({ defaultLimits: { dailyRecipients: 15 } });
    expect((await create()).status).toBe(201);
    expect((await create()).body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: { limit: 'dailyRecipients', field: 'listId', max: 15, used: 10, requested: 10 },
    });
  });

  it('keeps the least interval between send times and says when to send instead', async () => {
    await start({ defaultLimits: { minIntervalMs: HOUR } });
    expect((await create()).status).toBe(201);
    now += 10 * 60_000;
    expect((await create()).body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: { limit: 'minIntervalMs', field: 'sendAt', nearestSendAt: NOON, retryAt: NOON + HOUR },
    });
    expect((await create(broadcast('acme', { sendAt: new Date(NOON + HOUR).toISOString() }))).status).toBe(201);
  });

  it('applies no quota without an account store', async () => {
    const plain = createApiServer({
      config: compileConfig({ accounts: { defaultLimits: { dailyBroadcasts: 0 } } }),
      store: tasks,
      access: tokens.access,
      lists: new ListRepository(`${dir.path}/lists`),
      toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
      clock: { now: () => now },
      logger: noopLogger,
      blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    });
    app = plain;
    await plain.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(plain.server.address() as AddressInfo).port}`;
    expect((await create()).status).toBe(201);
    expect((await call('GET', '/api/v1/accounts/acme/limits')).status).toBe(404);
  });
});

describe('speed at task creation (maxSpeed)', () => {
  it('refuses any speed from an account whose maxSpeed is 0 (the default), creating and reserving nothing', async () => {
    await start();
    const refused = await create(broadcast('acme', { speed: 100 }));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: { accountId: 'acme', limit: 'maxSpeed', field: 'speed', max: 0, requested: 100 },
    });
    expect(refused.body.error.message).toContain('may not set a speed');
    expect(await taskCount()).toBe(0);
    expect(submitted).toHaveLength(0);
    expect((await call('GET', '/api/v1/accounts/acme/limits')).body.usage).toEqual({ broadcasts: 0, recipients: 0 });
    // Without a speed the account broadcasts as before; its task has none.
    expect(await create()).toMatchObject({ status: 201, body: { speed: null } });
  });

  it("admits a speed up to the account's maxSpeed in force (overridden, scaled by the click-through rate) and stores it", async () => {
    await start({ defaultLimits: { maxSpeed: 0 } });
    expect((await call('PUT', '/api/v1/accounts/acme/limits', { maxSpeed: 500 })).body).toMatchObject({
      limits: { maxSpeed: 500 },
    });
    const admitted = await create(broadcast('acme', { speed: 500 }));
    expect(admitted).toMatchObject({ status: 201, body: { speed: 500 } });
    expect((await tasks.getTask(admitted.body.id))?.speed).toBe(500);
    const over = await create(broadcast('acme', { speed: 501 }));
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({
      code: 'ACCOUNT_QUOTA_EXCEEDED',
      details: { limit: 'maxSpeed', field: 'speed', max: 500, requested: 501 },
    });
    expect(over.body.error.message).toContain("exceeds the account's maxSpeed of 500");
    expect(await taskCount()).toBe(1);
    // A good click-through rate doubles it, as it does the quotas; globex still may not set one.
    expect((await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: 0.1 })).body).toMatchObject({
      limits: { maxSpeed: 1000 },
    });
    expect((await create(broadcast('acme', { speed: 1000 }))).status).toBe(201);
    expect((await create(broadcast('globex', { speed: 1 }))).body.error).toMatchObject({
      details: { limit: 'maxSpeed', max: 0 },
    });
  });

  it('refuses a speed that is not an integer in [1, 10^8] with VALIDATION_FAILED naming speed', async () => {
    await start({ defaultLimits: { maxSpeed: 100_000_000 } });
    for (const speed of [0, -5, 1.5, null, 'fast', 100_000_001]) {
      const refused = await create(broadcast('acme', { speed }));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'speed' } });
    }
    expect(await taskCount()).toBe(0);
    expect((await create(broadcast('acme', { speed: 100_000_000 }))).status).toBe(201);
  });

  it('answers an Idempotency-Key retry only when it asks for the same speed', async () => {
    await start({ defaultLimits: { maxSpeed: 1000 } });
    const first = await create(broadcast('acme', { speed: 10 }), 'paced');
    expect(first.status).toBe(201);
    expect(await create(broadcast('acme', { speed: 10 }), 'paced')).toMatchObject({
      status: 200,
      body: { id: first.body.id },
    });
    expect((await create(broadcast('acme', { speed: 20 }), 'paced')).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await create(broadcast('acme'), 'paced')).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('/api/v1/accounts/:accountId', () => {
  it("shows the limits in force, today's usage and the next reset", async () => {
    await start({ defaultLimits: { dailyBroadcasts: 4, minIntervalMs: 0 } });
    await create();
    const answer = await call('GET', '/api/v1/accounts/acme/limits');
    expect(answer).toEqual({
      status: 200,
      body: {
        accountId: 'acme',
        limits: { dailyBroadcasts: 4, dailyRecipients: 10 ** 12, minIntervalMs: 0, maxSpeed: 0 },
        base: { dailyBroadcasts: 4, dailyRecipients: 10 ** 12, minIntervalMs: 0, maxSpeed: 0 },
        override: {},
        confirmation: { confirmAbove: 1_000_000, confirmWithinMs: HOUR },
        clickThroughRate: null,
        factor: 1,
        usage: { broadcasts: 1, recipients: 10 },
        dayStartsAt: NOON - 12 * HOUR,
        nextResetAt: NOON + 12 * HOUR,
        lastBroadcastAt: NOON,
        nextBroadcastAt: NOON,
        updatedAt: null,
      },
    });
  });

  it('scales the limits by the click-through rate an admin feeds, and takes overrides field by field', async () => {
    await start({ defaultLimits: { dailyBroadcasts: 4, dailyRecipients: 1000, minIntervalMs: 2 * HOUR } });
    const good = await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: 0.1 });
    expect(good.body).toMatchObject({
      clickThroughRate: 0.1,
      factor: 2,
      limits: { dailyBroadcasts: 8, dailyRecipients: 2000, minIntervalMs: HOUR },
      updatedAt: NOON,
    });
    const poor = await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: 0.01 });
    expect(poor.body).toMatchObject({
      factor: 0.5,
      limits: { dailyBroadcasts: 2, dailyRecipients: 500, minIntervalMs: 4 * HOUR },
    });
    const pinned = await call('PUT', '/api/v1/accounts/acme/limits', { dailyBroadcasts: 1 });
    expect(pinned.body).toMatchObject({
      override: { dailyBroadcasts: 1 },
      base: { dailyBroadcasts: 1, dailyRecipients: 1000 },
      limits: { dailyBroadcasts: 1, dailyRecipients: 500 },
    });
    // The poor rate now holds acme to one broadcast.
    expect((await create()).status).toBe(201);
    now += 5 * HOUR;
    expect((await create()).body.error).toMatchObject({ details: { limit: 'dailyBroadcasts', max: 1 } });
    const forgotten = await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: null });
    expect(forgotten.body).toMatchObject({ clickThroughRate: null, factor: 1 });
    expect((await call('PUT', '/api/v1/accounts/acme/limits', {})).body).toMatchObject({
      override: {},
      limits: { dailyBroadcasts: 4 },
    });
  });

  it("lets an account's operator read its limits, not another account's, and set nothing", async () => {
    await start();
    const operator = await tokens.token('operator', ['acme']);
    expect((await call('GET', '/api/v1/accounts/acme/limits', undefined, { token: operator })).status).toBe(200);
    const foreign = await call('GET', '/api/v1/accounts/globex/limits', undefined, { token: operator });
    expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'ACCOUNT_NOT_FOUND' } } });
    expect(
      (await call('PUT', '/api/v1/accounts/acme/limits', { dailyBroadcasts: 100 }, { token: operator })).body.error
        .code,
    ).toBe('FORBIDDEN');
    expect(
      (await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: 1 }, { token: operator })).body.error.code,
    ).toBe('FORBIDDEN');
    expect(await accounts.getSettings('acme')).toBeUndefined();
  });

  it('refuses bad input by field', async () => {
    await start();
    expect((await call('PUT', '/api/v1/accounts/acme/limits', { dailyBroadcasts: -1 })).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'dailyBroadcasts' },
    });
    expect((await call('PUT', '/api/v1/accounts/acme/limits', { minIntervalMs: DAY + 1 })).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'minIntervalMs' },
    });
    expect((await call('PUT', '/api/v1/accounts/acme/limits', { maxSpeed: 100_000_001 })).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'maxSpeed' },
    });
    expect((await call('PUT', '/api/v1/accounts/acme/click-through-rate', { rate: 1.5 })).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'rate' },
    });
    expect((await call('PUT', '/api/v1/accounts/acme/click-through-rate', {})).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'rate' },
    });
    expect((await call('GET', '/api/v1/accounts/Not-An-Id/limits')).status).toBe(400);
    expect(await accounts.getSettings('acme')).toBeUndefined();
  });
});
