/**
 * POST /api/v1/tasks with an Idempotency-Key header, over real HTTP on a real
 * LevelTaskStore: a retry with the same body answers the same task (200, not
 * 201) and creates nothing; another body with the key is 409
 * IDEMPOTENCY_KEY_REUSED; keys are scoped by account.
 */
import type { AddressInfo } from 'node:net';
import { ListRepository } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { noopLogger, systemClock } from '@herald/core/ports';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { Message, PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

let dir: TempDir;
let tasks: LevelTaskStore;
let tokens: TestAccess;
let app: FastifyInstance;
let base: string;
const submitted: Message[] = [];

beforeEach(async () => {
  submitted.length = 0;
  dir = await makeTempDir('herald-interface-idempotency-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  tokens = await openTestAccess();
  for (const accountId of ['acme', 'other']) {
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
  app = createApiServer({
    config: compileConfig(),
    store: tasks,
    access: tokens.access,
    lists: new ListRepository(`${dir.path}/lists`),
    toScheduler: {
      send: async (message: Message) => void submitted.push(message),
      close: () => undefined,
    } as unknown as PushChannel,
    clock: systemClock,
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await app.close();
  await tokens.close();
  await tasks.close();
  await dir.remove();
});

async function create(body: object, key?: string | string[]) {
  const headers = new Headers({ authorization: `Bearer ${tokens.adminToken}`, 'content-type': 'application/json' });
  for (const value of key === undefined ? [] : Array.isArray(key) ? key : [key])
    headers.append('idempotency-key', value);
  const response = await fetch(`${base}/api/v1/tasks`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const task = { accountId: 'acme', listId: 'l_acme', content: { body: 'Hello' } };

describe('POST /api/v1/tasks with Idempotency-Key', () => {
  it('answers a retry with the same task: 201 then 200, one task, one hand-over', async () => {
    const first = await create(task, 'order-42');
    expect(first.status).toBe(201);
    expect(first.body.idempotencyKey).toBe('api:acme:order-42');
    const retry = await create(task, 'order-42');
    expect(retry).toEqual({ status: 200, body: first.body });
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
    expect(submitted).toEqual([{ kind: 'task.submitted', taskId: first.body.id }]);
  });

  it('concurrent requests with one key make one task', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(task, 'burst')));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.every((a) => a.status === 200 || a.status === 201)).toBe(true);
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
  });

  it('refuses the key for another request with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const first = await create(task, 'k1');
    const other = await create({ ...task, content: { body: 'Hello!' } }, 'k1');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { field: 'Idempotency-Key', taskId: first.body.id },
    });
    expect((await create({ ...task, priority: 'realtime' }, 'k1')).status).toBe(409);
    expect((await tasks.listTasks()).tasks).toHaveLength(1);
  });

  it('compares local time and quiet hours as parsed: the same ones retry, other ones are refused', async () => {
    const local = { ...task, deliverAt: { localTime: '09:00', window: '2h' }, quietHours: '22:00-08:00' };
    const first = await create(local, 'k-local');
    expect(first.status).toBe(201);
    // '120m' is the same window as '2h': a retry.
    expect((await create({ ...local, deliverAt: { localTime: '09:00', window: '120m' } }, 'k-local')).status).toBe(200);
    expect((await create({ ...local, deliverAt: { localTime: '10:00', window: '2h' } }, 'k-local')).status).toBe(409);
    expect((await create({ ...local, quietHours: '23:00-08:00' }, 'k-local')).status).toBe(409);
    expect((await create({ ...task }, 'k-local')).status).toBe(409);
  });

  it('scopes keys by account, and leaves requests without a key alone', async () => {
    const a = await create(task, 'same');
    const b = await create({ accountId: 'other', listId: 'l_other', content: { body: 'Hello' } }, 'same');
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    const plain = [await create(task), await create(task)];
    expect(plain.map((p) => p.status)).toEqual([201, 201]);
    expect(plain[0]!.body.id).not.toBe(plain[1]!.body.id);
  });

  it.each([
    ['too long', 'k'.repeat(129)],
    ['not printable ASCII', 'schlüssel'],
    ['repeated', ['a', 'b']],
  ])('refuses a header that is %s with VALIDATION_FAILED naming it', async (_what, key) => {
    const answer = await create(task, key);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'Idempotency-Key' } });
    expect((await tasks.listTasks()).tasks).toEqual([]);
  });
});
