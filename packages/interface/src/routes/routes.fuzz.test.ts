/**
 * Fuzz tests (fast-check) of the HTTP API's request handling: whatever JSON
 * body, raw payload, path parameter or query string a client sends to the
 * /api/v1 routes, the answer is a success or a 4xx with a JSON body
 * `{ error: { code, message } }` whose code is one of Herald's stable codes,
 * never a 500; a valid task body creates the task it describes.
 *
 * The server runs on minimal real deps (LevelTaskStore and a ListRepository
 * in a temp dir) and listens on 127.0.0.1 (fastify's inject needs an ESM-only
 * module that jest on Node 20 cannot load). The
 * scheduler channel only encodes each message (so one the wire cannot carry
 * would surface) and keeps it.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { join } from 'node:path';
import { compileConfig } from '@herald/core/config';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { ErrorCodes } from '@herald/core';
import { noopLogger, systemClock } from '@herald/core/ports';
import type { ListMeta } from '@herald/core/task';
import { ListRepository } from '@herald/audience';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { encodeMessage, type Message, type PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 100;
/** Each run is a few loopback requests; a run still pending after this is a hang. */
const settings = { numRuns: RUNS, timeout: 5000 };

const STABLE_CODES = new Set<string>(Object.values(ErrorCodes));

interface Answer {
  statusCode: number;
  json(): unknown;
}

/** A success, or a 4xx whose body carries a stable code; anything else (a 5xx above all) fails the property. */
function expectHandled(response: Answer, success: number[]): void {
  if (success.includes(response.statusCode)) return;
  const body = response.json() as { error?: { code?: unknown; message?: unknown } };
  const status = response.statusCode >= 400 && response.statusCode < 500 ? '4xx' : response.statusCode;
  expect({ status, body }).toEqual({
    status: '4xx',
    body: { error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) },
  });
  expect(STABLE_CODES.has(body.error!.code as string)).toBe(true);
}

const json = fc.jsonValue({ maxDepth: 3 });
const edgy = fc.oneof(
  json,
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    1e300,
    2 ** 53,
    '',
    ' ',
    'x'.repeat(300),
    '9999-99-99',
    '+275760-09-13T00:00:00Z',
    '-271821-04-20T00:00:00Z',
    [],
    {},
    { body: '' },
  ),
);

describe('HTTP API, fuzzed', () => {
  let dir: TempDir;
  let store: LevelTaskStore;
  let app: FastifyInstance;
  let base: string;
  let list: ListMeta;
  let tokens: TestAccess;
  const sent: Message[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('herald-api-fuzz-');
    // No rate limit: the properties send requests as fast as the loopback carries them.
    const config = compileConfig({
      dataDir: dir.path,
      uinSpaceBits: 20,
      http: { uploadLimitBytes: 4096 },
      tasks: { maxContentChars: 200 },
      auth: { rateLimit: { perSecond: 0 } },
    });
    tokens = await openTestAccess();
    store = await LevelTaskStore.open(join(dir.path, 'tasks'));
    const lists = new ListRepository(join(dir.path, 'lists'));
    const upload = (async function* () {
      yield encodeRecipientList([1, 2, 3]);
    })();
    list = await lists.importStream(upload, { accountId: 'acct', uinLimit: config.uinLimit, maxBytes: 4096 });
    await store.putList(list);
    const toScheduler: PushChannel = {
      async send(msg) {
        encodeMessage(msg);
        sent.push(msg);
      },
      close() {},
    };
    app = createApiServer({
      config,
      store,
      access: tokens.access,
      lists,
      toScheduler,
      clock: systemClock,
      logger: noopLogger,
      blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  /** One request; a JSON-able object payload is sent as application/json. */
  async function send(
    method: string,
    url: string,
    options: { payload?: unknown; headers?: Record<string, string>; query?: Record<string, string> } = {},
  ): Promise<Answer> {
    const { payload, headers = {}, query } = options;
    const raw = typeof payload === 'string' || Buffer.isBuffer(payload);
    const body = payload === undefined ? undefined : raw ? (payload as string | Buffer) : JSON.stringify(payload);
    const target = query === undefined ? url : `${url}?${new URLSearchParams(query).toString()}`;
    const auth = { authorization: `Bearer ${tokens.adminToken}`, ...headers };
    const response = await fetch(base + target, {
      method,
      body,
      headers: raw || payload === undefined ? auth : { 'content-type': 'application/json', ...auth },
    });
    const text = await response.text();
    return { statusCode: response.status, json: () => JSON.parse(text) as unknown };
  }
  afterAll(async () => {
    await app.close();
    await store.close();
    await tokens.close();
    await dir.remove();
  });

  const validBody = () => ({
    accountId: 'acct',
    listId: list.id,
    content: { body: 'hello', title: 'news' },
    priority: 'normal',
    sendAt: new Date(Date.now() + 60_000).toISOString(),
    ttlSeconds: 3600,
  });

  it('answers any JSON body to POST /api/v1/tasks with 201 or a 4xx and a stable code', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (body) => {
        expectHandled(
          await send('POST', '/api/v1/tasks', {
            payload: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }),
          [201],
        );
      }),
      settings,
    );
  });

  it('answers a valid task body with one field replaced, removed or added with 201 or a 4xx and a stable code', async () => {
    const field = fc.constantFrom(
      'accountId',
      'listId',
      'content',
      'content.body',
      'content.title',
      'priority',
      'sendAt',
      'ttlSeconds',
      'extra',
      'content.extra',
    );
    await fc.assert(
      fc.asyncProperty(field, fc.option(edgy, { nil: undefined }), async (path, value) => {
        const body = validBody() as Record<string, unknown> & { content: Record<string, unknown> };
        const [head, tail] = path.split('.') as [string, string | undefined];
        const parent = tail === undefined ? body : body.content;
        const key = tail ?? head;
        if (value === undefined) delete parent[key];
        else parent[key] = value;
        expectHandled(await send('POST', '/api/v1/tasks', { payload: body }), [201]);
      }),
      settings,
    );
  });

  it('answers any raw payload and content type with a 4xx or success, never a 500', async () => {
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      '',
    );
    const payload = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    );
    const route = fc.constantFrom(
      'POST /api/v1/tasks',
      'POST /api/v1/lists?accountId=acct',
      'PUT /api/v1/blacklists/global',
      'PUT /api/v1/accounts/acct/blacklist',
      'POST /api/v1/tasks/1/cancel',
      'DELETE /api/v1/tasks/1/records',
    );
    await fc.assert(
      fc.asyncProperty(route, contentType, payload, async (r, type, body) => {
        const [method, url] = r.split(' ') as ['POST' | 'PUT' | 'DELETE', string];
        const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
        expectHandled(await send(method, url, { payload: body, headers }), [200, 201, 202]);
      }),
      settings,
    );
  });

  it('answers any task id, list id and query string with a success or a 4xx and a stable code', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.nat().map(String),
      fc.constantFrom('0', '-1', '1e3', '9007199254740993', '%', '..', '%2e%2e', '%00'),
    );
    const query = fc.dictionary(
      fc.constantFrom('state', 'accountId', 'cursor', 'limit', 'x'),
      fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String), fc.constantFrom('1e400', 'NaN', '-0', 'QUEUED')),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(segment, query, fc.constantFrom('cancel', 'pause', 'resume'), async (raw, q, command) => {
        const id = encodeURIComponent(raw);
        expectHandled(await send('GET', `/api/v1/tasks/${id}`), [200]);
        expectHandled(await send('POST', `/api/v1/tasks/${id}/${command}`), [202]);
        expectHandled(await send('DELETE', `/api/v1/tasks/${id}/records`), [200]);
        expectHandled(await send('GET', `/api/v1/lists/${id}`), [200]);
        expectHandled(await send('GET', '/api/v1/tasks', { query: q }), [200]);
      }),
      settings,
    );
  });

  it('answers any Authorization header that is not a valid token with 401 UNAUTHENTICATED, never a 500', async () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{0,140}$/);
    const header = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .tuple(
          fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''),
          fc.constantFrom('hrd_', 'hrd_testadmin_', 'hrd__', ''),
          secret,
        )
        .map((parts) => parts.join('')),
      // The test admin's id with a wrong secret of the right shape.
      fc.stringMatching(/^[A-Za-z0-9_-]{32,140}$/).map((s) => `Bearer hrd_testadmin_${s}`),
    );
    await fc.assert(
      fc.asyncProperty(
        header,
        fc.constantFrom('GET /api/v1/tasks', 'POST /api/v1/tasks', 'GET /api/v1/me', 'DELETE /api/v1/tokens/abcd'),
        async (value, route) => {
          const [method, url] = route.split(' ') as [string, string];
          let response: Response;
          try {
            response = await fetch(base + url, {
              method,
              headers: { authorization: value },
              signal: AbortSignal.timeout(5000),
            });
          } catch (error) {
            if ((error as Error).name === 'TimeoutError')
              throw new Error(`no answer to ${route} with authorization ${JSON.stringify(value)}`);
            return; // a header fetch itself refuses to send (e.g. a control character) never reaches the server
          }
          if (value === `Bearer ${tokens.adminToken}`) return;
          expect(response.status).toBe(401);
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
        },
      ),
      settings,
    );
  });

  it('answers any token and audit request with a success or a 4xx and a stable code', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom('', 'admin', 'operator', 'acct', '%00', 'x'.repeat(300)),
    );
    const query = fc.dictionary(
      fc.constantFrom('tokenId', 'accountId', 'from', 'to', 'cursor', 'limit', 'x'),
      fc.oneof(text, fc.integer().map(String)),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(edgy, text, query, async (body, id, q) => {
        expectHandled(
          await send('POST', '/api/v1/tokens', {
            payload: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }),
          [201],
        );
        expectHandled(await send('DELETE', `/api/v1/tokens/${encodeURIComponent(id)}`), [200]);
        expectHandled(await send('GET', '/api/v1/audit', { query: q }), [200]);
      }),
      settings,
    );
  });

  it('creates the task a valid body describes and hands it to the scheduler', async () => {
    const valid = fc.record({
      body: fc.string({ minLength: 1, maxLength: 200 }),
      title: fc.option(fc.string({ maxLength: 256 }), { nil: undefined }),
      priority: fc.constantFrom('realtime', 'normal'),
      ttlSeconds: fc.integer({ min: 1, max: 7 * 86_400 }),
    });
    await fc.assert(
      fc.asyncProperty(valid, async ({ body, title, priority, ttlSeconds }) => {
        const content = title === undefined ? { body } : { body, title };
        const response = await send('POST', '/api/v1/tasks', {
          payload: { accountId: 'acct', listId: list.id, content, priority, ttlSeconds },
        });
        expect(response.statusCode).toBe(201);
        const created = response.json() as { id: number };
        const fetched = await send('GET', `/api/v1/tasks/${created.id}`);
        expect(fetched.json()).toMatchObject({
          id: created.id,
          accountId: 'acct',
          listId: list.id,
          content,
          priority,
          state: 'CREATED',
        });
        expect(sent[sent.length - 1]).toEqual({ kind: 'task.submitted', taskId: created.id });
      }),
      settings,
    );
  });
});
