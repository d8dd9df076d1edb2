/**
 * The blacklist routes over real HTTP: replace (binary, text, CSV), read the
 * metadata, download the uins as CSV, clear. The task store is a map (only
 * putList/getList are used here) and the scheduler channel refuses any use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListRepository, loadRecipientList } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { TaskStore } from '@herald/core/ports';
import { noopLogger } from '@herald/core/ports';
import type { ListMeta } from '@herald/core/task';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const U32 = 2 ** 32;
let dir: string;
let lists: ListRepository;
let app: FastifyInstance;
let base: string;
let tokens: TestAccess;
let now = Date.UTC(2027, 5, 1, 9, 0, 0);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-interface-blacklists-'));
  const clock = { now: () => now };
  lists = new ListRepository(join(dir, 'lists'), { clock });
  const metas = new Map<string, ListMeta>();
  tokens = await openTestAccess();
  const store = {
    putList: async (meta: ListMeta) => void metas.set(meta.id, meta),
    getList: async (id: string) => metas.get(id),
  } as unknown as TaskStore;
  const toScheduler = {
    send: () => Promise.reject(new Error('blacklist routes never talk to the scheduler')),
    close: () => undefined,
  } as unknown as PushChannel;
  app = createApiServer({
    config: compileConfig({ uinSpaceBits: 32, http: { uploadLimitBytes: 1 << 27 } }),
    store,
    access: tokens.access,
    lists,
    toScheduler,
    clock,
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_acct_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await app.close();
  await tokens.close();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; details?: Record<string, unknown> } };
}

async function call(
  method: string,
  path: string,
  options: { token?: string; contentType?: string; body?: string | Uint8Array } = {},
): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${options.token ?? tokens.adminToken}`,
      ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
    },
    body: options.body as RequestInit['body'],
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

async function download(path: string, token = tokens.adminToken): Promise<{ response: Response; text: string }> {
  const response = await fetch(`${base}${path}?download=true`, { headers: { authorization: `Bearer ${token}` } });
  return { response, text: await response.text() };
}

const ACME = '/api/v1/accounts/acme/blacklist';
const GLOBAL = '/api/v1/blacklists/global';

describe('GET a blacklist', () => {
  it('answers count 0 and no change time for one never set, and downloads as the header line alone', async () => {
    expect(await call('GET', GLOBAL)).toEqual({
      status: 200,
      body: {
        scope: 'global',
        accountId: null,
        listId: 'b_global',
        count: 0,
        bytes: 0,
        checksum: null,
        updatedAt: null,
      },
    });
    const { response, text } = await download(ACME);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="blacklist-acme.csv"');
    expect(text).toBe('uin\n');
  });

  it('refuses a download that is not true or false, and an unknown parameter, naming it', async () => {
    const bad = await call('GET', `${ACME}?download=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('VALIDATION_FAILED');
    expect((await call('GET', `${ACME}?format=csv`)).status).toBe(400);
  });
});

describe('PUT then GET a blacklist', () => {
  it('replaces it from a CSV, answers the import report, and reads back its count, time and uins', async () => {
    const put = await call('PUT', `${ACME}?column=uin`, {
      contentType: 'text/csv',
      body: 'name,uin\nann,30\nbob,10\ncy,20\n',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: 'b_acct_acme',
      accountId: 'acme',
      count: 3,
      import: { format: 'csv', column: 2 },
    });
    expect(await call('GET', ACME)).toEqual({
      status: 200,
      body: {
        scope: 'account',
        accountId: 'acme',
        listId: 'b_acct_acme',
        count: 3,
        bytes: put.body.bytes,
        checksum: put.body.checksum,
        updatedAt: now,
      },
    });
    expect((await download(ACME)).text).toBe('uin\n30\n10\n20\n');
  });

  it('keeps the blacklist it had when an upload has too many bad lines, and answers where they are', async () => {
    await call('PUT', GLOBAL, { contentType: 'application/octet-stream', body: encodeRecipientList([7, 8]) });
    const refused = await call('PUT', GLOBAL, { contentType: 'text/plain', body: '1\nabc\n-4\n' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'LIST_TOO_MANY_BAD_LINES',
      details: {
        firstBad: [
          { line: 2, reason: 'not_a_number' },
          { line: 3, reason: 'negative' },
        ],
      },
    });
    expect((await call('GET', GLOBAL)).body.count).toBe(2);
    expect((await download(GLOBAL)).text).toBe('uin\n7\n8\n');
  });

  it('streams a blacklist of several read batches whole, and its download uploads back as the same list', async () => {
    const uins = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % U32);
    await call('PUT', ACME, { contentType: 'application/octet-stream', body: encodeRecipientList(uins) });
    const { text } = await download(ACME);
    const lines = text.split('\n');
    expect(lines[0]).toBe('uin');
    expect(lines.length).toBe(uins.length + 2);
    expect(lines.slice(1, -1).map(Number)).toEqual(uins);
    expect((await call('PUT', GLOBAL, { contentType: 'text/csv', body: text })).body.count).toBe(uins.length);
    expect(Array.from(await loadRecipientList(lists.pathOf('b_global'), { uinLimit: U32 }))).toEqual(uins);
  });
});

describe('DELETE a blacklist', () => {
  it('clears it: count 0, the time it was cleared, no file, an empty download', async () => {
    await call('PUT', ACME, { contentType: 'text/plain', body: '5\n6\n' });
    now += 60_000;
    const cleared = await call('DELETE', ACME);
    expect(cleared).toEqual({
      status: 200,
      body: {
        scope: 'account',
        accountId: 'acme',
        listId: 'b_acct_acme',
        count: 0,
        bytes: 0,
        checksum: null,
        updatedAt: now,
      },
    });
    expect(await lists.exists('b_acct_acme')).toBe(false);
    expect((await call('GET', ACME)).body).toEqual(cleared.body);
    expect((await download(ACME)).text).toBe('uin\n');
    expect((await call('DELETE', ACME)).status).toBe(200);
  });
});

describe('who may', () => {
  it("lets an operator read, replace and clear its accounts' blacklists only, and never the global one", async () => {
    const ops = await tokens.token('operator', ['acme']);
    expect((await call('PUT', ACME, { token: ops, contentType: 'text/plain', body: '5\n' })).status).toBe(200);
    expect((await call('GET', ACME, { token: ops })).body.count).toBe(1);
    expect((await download(ACME, ops)).text).toBe('uin\n5\n');
    expect((await call('GET', '/api/v1/accounts/globex/blacklist', { token: ops })).body.error?.code).toBe(
      'ACCOUNT_NOT_FOUND',
    );
    expect((await download('/api/v1/accounts/globex/blacklist', ops)).response.status).toBe(404);
    expect((await call('GET', GLOBAL, { token: ops })).status).toBe(403);
    expect((await call('DELETE', GLOBAL, { token: ops })).status).toBe(403);
    expect((await call('DELETE', ACME, { token: ops })).status).toBe(200);
  });
});
