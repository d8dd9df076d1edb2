/**
 * POST /api/v1/lists over real HTTP: text/plain and text/csv uploads are
 * converted to binary lists, or rejected with LIST_TOO_MANY_BAD_LINES and
 * nothing kept; binary uploads behave as before. The task store is a map
 * (only putList/getList are used by these routes) and the scheduler channel
 * refuses any use.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListRepository, loadRecipientList } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { noopLogger, systemClock, type TaskStore } from '@herald/core/ports';
import type { ListMeta } from '@herald/core/task';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const U32 = 2 ** 32;
let dir: string;
let lists: ListRepository;
let metas: Map<string, ListMeta>;
let app: FastifyInstance;
let base: string;
let tokens: TestAccess;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-interface-lists-'));
  lists = new ListRepository(join(dir, 'lists'));
  metas = new Map();
  tokens = await openTestAccess();
  const store = {
    putList: async (meta: ListMeta) => void metas.set(meta.id, meta),
    getList: async (id: string) => metas.get(id),
  } as unknown as TaskStore;
  const toScheduler: PushChannel = {
    send: () => Promise.reject(new Error('list routes never talk to the scheduler')),
    close: () => undefined,
  } as unknown as PushChannel;
  app = createApiServer({
    config: compileConfig({ uinSpaceBits: 32, http: { uploadLimitBytes: 1 << 27 } }),
    store,
    access: tokens.access,
    lists,
    toScheduler,
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
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string; details?: Record<string, unknown> } };
}

async function upload(
  query: string,
  contentType: string,
  body: string | Uint8Array | AsyncIterable<Uint8Array>,
): Promise<Answer> {
  const response = await fetch(`${base}/api/v1/lists?accountId=acme${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${tokens.adminToken}` },
    body: body as RequestInit['body'],
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

async function storedUins(id: unknown): Promise<number[]> {
  return Array.from(await loadRecipientList(lists.pathOf(String(id)), { uinLimit: U32 }));
}

async function listFiles(): Promise<string[]> {
  return readdir(join(dir, 'lists')).catch(() => []);
}

describe('POST /api/v1/lists with text', () => {
  it('accepts text/plain, stores a binary list and answers the counts', async () => {
    const text = 'uin\r\n5\r\n\r\n3\r\n3\r\n4294967295';
    const answer = await upload('', 'text/plain; charset=utf-8', text);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      accountId: 'acme',
      count: 4,
      sorted: false,
      unique: false,
      bytes: 32 + 4 * 8,
      import: {
        uploadBytes: Buffer.byteLength(text),
        format: 'lines',
        lines: 6,
        valid: 4,
        blank: 1,
        header: { line: 1, fields: ['uin'] },
        column: 1,
        bad: { not_a_number: 0, negative: 0, fraction: 0, out_of_range: 0, too_long: 0, missing_column: 0, total: 0 },
        firstBad: [],
      },
    });
    expect(await storedUins(answer.body.id)).toEqual([5, 3, 3, 4294967295]);
    // The stored metadata is the binary list's, without the import report.
    const got = await fetch(`${base}/api/v1/lists/${String(answer.body.id)}`, {
      headers: { authorization: `Bearer ${tokens.adminToken}` },
    });
    const { import: _report, ...meta } = answer.body;
    expect(await got.json()).toEqual(meta);
  });

  it('accepts text/csv with a named column, a delimiter and a bad line under the threshold', async () => {
    const csv = 'name;UIN\nann;10\nbob;-1\ncy;30\n';
    const answer = await upload('&column=uin&delimiter=%3B&maxBadRatio=0.5', 'text/csv', csv);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      count: 2,
      import: { format: 'csv', column: 2, bad: { negative: 1, total: 1 }, firstBad: [{ line: 3, reason: 'negative' }] },
    });
    expect(await storedUins(answer.body.id)).toEqual([10, 30]);
    const numbered = await upload('&column=2&header=absent&delimiter=tab', 'text/csv', 'a\t7\nb\t8\n');
    expect(numbered.status).toBe(201);
    expect(await storedUins(numbered.body.id)).toEqual([7, 8]);
  });

  it('rejects too many bad lines with 422 LIST_TOO_MANY_BAD_LINES, the counts, and no file left', async () => {
    const answer = await upload('', 'text/plain', '1\n2\nabc\n-4\n5.5\n4294967296\n');
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'LIST_TOO_MANY_BAD_LINES',
      details: {
        maxBadRatio: 0.01,
        valid: 2,
        bad: { not_a_number: 1, negative: 1, fraction: 1, out_of_range: 1, too_long: 0, missing_column: 0, total: 4 },
        firstBad: [
          { line: 3, reason: 'not_a_number' },
          { line: 4, reason: 'negative' },
          { line: 5, reason: 'fraction' },
          { line: 6, reason: 'out_of_range' },
        ],
      },
    });
    expect(await listFiles()).toEqual([]);
    expect(metas.size).toBe(0);
  });

  it('answers 422 LIST_EMPTY for blank text, 400 for bad parameters and an unknown column', async () => {
    expect(await upload('', 'text/plain', '\n\n')).toMatchObject({
      status: 422,
      body: { error: { code: 'LIST_EMPTY' } },
    });
    for (const query of [
      '&maxBadRatio=2',
      '&maxBadRatio=x',
      '&header=maybe',
      '&delimiter=x',
      '&column=0',
      '&column=',
    ]) {
      expect({ query, ...(await upload(query, 'text/csv', '1\n')) }).toMatchObject({
        query,
        status: 400,
        body: { error: { code: 'VALIDATION_FAILED' } },
      });
    }
    expect(await upload('&column=uin', 'text/csv', 'a,b\n1,2\n')).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
    expect(await upload('&column=2', 'text/plain', '1\n')).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
    expect((await listFiles()).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('still takes binary lists, and refuses text parameters with them', async () => {
    const binary = encodeRecipientList([1, 2, 3]);
    const answer = await upload('', 'application/octet-stream', binary);
    expect(answer).toMatchObject({ status: 201, body: { count: 3, sorted: true, unique: true } });
    expect(answer.body.import).toBeUndefined();
    expect(await upload('&column=2', 'application/octet-stream', binary)).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
  });

  it('streams a 10^6-line upload through and stores every uin', async () => {
    const n = 1_000_000;
    const uinAt = (i: number): number => (i * 2_654_435_761) >>> 0;
    async function* body(): AsyncGenerator<Uint8Array> {
      for (let start = 0; start < n; start += 50_000) {
        let text = '';
        for (let i = start; i < start + 50_000; i++) text += `${uinAt(i)}\n`;
        yield Buffer.from(text);
      }
    }
    const answer = await upload('', 'text/plain', body());
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ count: n, import: { lines: n, valid: n, bad: { total: 0 } } });
    const uins = await storedUins(answer.body.id);
    expect(uins).toHaveLength(n);
    let mismatches = 0;
    for (let i = 0; i < n; i++) if (uins[i] !== uinAt(i)) mismatches++;
    expect(mismatches).toBe(0);
  });
});
