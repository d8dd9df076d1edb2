/**
 * The API server's connections over real sockets (issue 15): a rejected
 * upload answers `Connection: close` and its socket closes at once, whatever
 * is left of its body; close() finishes within `http.shutdownGraceMs` (plus
 * slack) whatever the clients do. The deadlines are generous: the code before
 * this change kept such a socket for the keep-alive time (72 s) and never
 * finished close() while a client stalled mid-upload or did not read.
 */
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListRepository } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { noopLogger, systemClock, type TaskStore } from '@herald/core/ports';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from './access/test-access.test-util';
import { answerOf, openRawClient, requestHead, within, type RawClient } from './raw-client.test-util';
import { createApiServer } from './server';

const UPLOAD_LIMIT = 64 * 1024;
const GRACE_MS = 300;
/** Far above GRACE_MS and a loaded machine's hiccups, far below 72 s (keep-alive) and "never". */
const DEADLINE_MS = 8000;

/** 64 MiB in 64 KiB chunks, far more than the socket buffers hold: a client that does not read keeps the answer in progress. */
function bigStream(): Readable {
  const chunk = Buffer.alloc(64 * 1024, 120);
  return Readable.from(
    (function* () {
      for (let i = 0; i < 1024; i++) yield chunk;
    })(),
  );
}

let dir: TempDir;
let tokens: TestAccess;
let app: FastifyInstance;
let port: number;
let importsStarted: number;
let serverSockets: Socket[];
const clients: RawClient[] = [];

beforeEach(async () => {
  dir = await makeTempDir('herald-interface-connections-');
  tokens = await openTestAccess();
  importsStarted = 0;
  const repository = new ListRepository(join(dir.path, 'lists'));
  // The same repository, telling the tests when an upload has reached it (is being read).
  const lists = Object.assign(Object.create(repository) as ListRepository, {
    importStream: (...args: Parameters<ListRepository['importStream']>) => {
      importsStarted++;
      return repository.importStream(...args);
    },
  });
  app = createApiServer({
    config: compileConfig({ uinSpaceBits: 32, http: { uploadLimitBytes: UPLOAD_LIMIT, shutdownGraceMs: GRACE_MS } }),
    store: { putList: async () => undefined, getList: async () => undefined } as unknown as TaskStore,
    access: tokens.access,
    lists,
    toScheduler: { send: () => Promise.reject(new Error('unused')), close: () => undefined } as unknown as PushChannel,
    clock: systemClock,
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    // A streamed answer (Fastify pipes a stream body) that is still being written while a client does not read.
    metrics: async () => ({ contentType: 'text/plain', body: bigStream() as unknown as string }),
  });
  serverSockets = [];
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

afterEach(async () => {
  // A failing test may leave a client holding the server: release it so close() can finish.
  for (const client of clients.splice(0)) client.socket.destroy();
  await app.close();
  await tokens.close();
  await dir.remove();
});

async function client(): Promise<RawClient> {
  const opened = await openRawClient(port);
  clients.push(opened);
  return opened;
}

function uploadHead(contentLength: number, options: { contentType?: string; token?: string | null } = {}): string {
  const token = options.token === undefined ? tokens.adminToken : options.token;
  return requestHead('POST', '/api/v1/lists?accountId=acme', {
    'content-type': options.contentType ?? 'application/octet-stream',
    'content-length': contentLength,
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
  });
}

function errorOf(body: string): { code: string; message: string; details?: Record<string, unknown> } {
  const parsed = JSON.parse(body) as { error: { code: string; message: string; details?: Record<string, unknown> } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(typeof parsed.error.message).toBe('string');
  return parsed.error;
}

describe('a rejected upload closes its connection', () => {
  it('answers 413 with Connection: close to an upload declared over the limit, and closes the socket', async () => {
    const socket = await client();
    socket.socket.write(uploadHead(16 * UPLOAD_LIMIT));
    socket.socket.write(Buffer.alloc(4 * UPLOAD_LIMIT, 1));
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer.body).code).toEqual(expect.any(String));
    await within(socket.closed, DEADLINE_MS, 'the server closing the socket');
    expect(importsStarted).toBe(0);
  });

  it('closes the socket after a bad list header while the client stalls with most of the body unsent', async () => {
    const socket = await client();
    socket.socket.write(uploadHead(UPLOAD_LIMIT / 2));
    socket.socket.write(Buffer.alloc(1024, 1)); // not the HRLS magic
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBe(400);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer.body).code).toBe('LIST_BAD_MAGIC');
    await within(socket.closed, DEADLINE_MS, 'the server closing the socket');
  });

  it('closes the socket of an upload without a token, its body unread', async () => {
    const socket = await client();
    socket.socket.write(uploadHead(UPLOAD_LIMIT / 2, { token: null }));
    socket.socket.write(Buffer.alloc(1024, 1));
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer.body).code).toBe('UNAUTHENTICATED');
    await within(socket.closed, DEADLINE_MS, 'the server closing the socket');
  });

  it('closes the socket of a chunked text upload that grows over the limit', async () => {
    const socket = await client();
    const head = requestHead('POST', '/api/v1/lists?accountId=acme', {
      'content-type': 'text/plain',
      'transfer-encoding': 'chunked',
      authorization: `Bearer ${tokens.adminToken}`,
    });
    const lines = Buffer.from('12345\n'.repeat(UPLOAD_LIMIT / 3));
    socket.socket.write(head + `${lines.length.toString(16)}\r\n`);
    socket.socket.write(lines); // over the limit, and the chunked body never ends
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.headers.connection).toBe('close');
    errorOf(answer.body);
    await within(socket.closed, DEADLINE_MS, 'the server closing the socket');
  });

  it('keeps a connection alive after an answer to a request read to its end', async () => {
    const socket = await client();
    socket.socket.write(requestHead('GET', '/api/v1/health', {}));
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('keep-alive');
    expect(socket.isClosed()).toBe(false);
  });
});

describe('close() is bounded by http.shutdownGraceMs', () => {
  it('finishes with an idle keep-alive connection open', async () => {
    const socket = await client();
    socket.socket.write(requestHead('GET', '/api/v1/health', {}));
    expect((await answerOf(socket, DEADLINE_MS)).status).toBe(200);
    await within(app.close(), DEADLINE_MS, 'close() with an idle keep-alive connection');
    await within(socket.closed, DEADLINE_MS, 'the idle connection closing');
  });

  it('finishes with a keep-alive connection left by a rejected upload', async () => {
    const socket = await client();
    socket.socket.write(uploadHead(UPLOAD_LIMIT / 2));
    socket.socket.write(Buffer.alloc(1024, 1));
    expect((await answerOf(socket, DEADLINE_MS)).status).toBe(400);
    await within(app.close(), DEADLINE_MS, 'close() after a rejected upload');
  });

  it('finishes while a client that sent its headers and half its body stalls', async () => {
    const list = encodeRecipientList(Array.from({ length: 2048 }, (_, i) => i));
    const socket = await client();
    socket.socket.write(uploadHead(list.length));
    socket.socket.write(list.subarray(0, list.length / 2));
    await waitFor(() => importsStarted === 1, {
      timeoutMs: DEADLINE_MS,
      message: 'the upload reaching the list repository',
    });
    await within(app.close(), DEADLINE_MS, 'close() with a stalled upload');
    await within(socket.closed, DEADLINE_MS, 'the stalled connection closing');
  });

  it('finishes while a client does not read a large answer', async () => {
    const socket = await client();
    socket.socket.pause();
    socket.socket.write(requestHead('GET', '/metrics', {}));
    await waitFor(() => serverSockets.some((s) => s.bytesWritten > 0), {
      timeoutMs: DEADLINE_MS,
      message: 'the answer being written',
    });
    await within(app.close(), DEADLINE_MS, 'close() with a client not reading its answer');
    // The client reads nothing, so it learns of the close only when it reads: the server's side is gone.
    expect(serverSockets.every((s) => s.destroyed)).toBe(true);
  });

  it('answers a request completed while closing with 503 UNAVAILABLE and Connection: close', async () => {
    const socket = await client();
    // Half a request head: the connection is busy (not idle), so close() does not drop it at once.
    socket.socket.write('GET /api/v1/health HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    await waitFor(() => serverSockets.some((s) => s.bytesRead > 0), {
      timeoutMs: DEADLINE_MS,
      message: 'the server reading the head',
    });
    const closing = app.close();
    await waitFor(() => !app.server.listening, { timeoutMs: DEADLINE_MS, message: 'the server closing' });
    socket.socket.write('\r\n');
    const answer = await answerOf(socket, DEADLINE_MS);
    expect(answer.status).toBe(503);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer.body).code).toBe('UNAVAILABLE');
    await within(closing, DEADLINE_MS, 'close()');
  });
});
