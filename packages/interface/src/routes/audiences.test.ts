/**
 * The audience routes over real HTTP (127.0.0.1), on a real LevelTaskStore,
 * LevelFollowerStore and LevelAttributeIndex in a temp dir, with an admin and
 * an operator token: jobs that build lists from followers and from a
 * targeting query, progress while running, cancel, a source failing half way
 * (no list, a clear error), bad queries refused at once with their position,
 * and account scoping.
 */
import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { FollowerCopies, ListRepository, loadRecipientList } from '@herald/audience';
import { compileConfig, type HeraldOptions } from '@herald/core/config';
import { ErrorCodes, HeraldError } from '@herald/core';
import { noopLogger, type AudienceBatch, type AudienceSource } from '@herald/core/ports';
import { LevelAttributeIndex, LevelFollowerStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import type { AudienceJob } from '../audience-jobs';
import { createApiServer } from '../server';

let dir: TempDir;
let tasks: LevelTaskStore;
let followers: LevelFollowerStore;
let attributes: LevelAttributeIndex;
let lists: ListRepository;
let tokens: TestAccess;
let app: FastifyInstance;
let base: string;
let operator: string;
/** What the `table` kind answers in these tests: set per test. */
let tableSource: (spec: unknown) => AudienceSource;
let copies: FollowerCopies;

async function start(config: HeraldOptions = {}): Promise<void> {
  app = createApiServer({
    config: compileConfig({ uinSpaceBits: 24, ...config }),
    store: tasks,
    access: tokens.access,
    lists,
    audiences: { followers, attributes, tables: { source: (spec) => tableSource(spec) }, followerCopies: copies },
    toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
    clock: { now: () => Date.UTC(2025, 0, 31) },
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeEach(async () => {
  dir = await makeTempDir('herald-interface-audiences-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  followers = await LevelFollowerStore.open(`${dir.path}/followers`);
  attributes = await LevelAttributeIndex.open(`${dir.path}/attributes`);
  lists = new ListRepository(`${dir.path}/lists`);
  copies = new FollowerCopies(`${dir.path}/follower-copies`);
  tokens = await openTestAccess();
  operator = await tokens.token('operator', ['acme']);
  tableSource = () => {
    throw new Error('no table source in this test');
  };
});

afterEach(async () => {
  await app?.close();
  await tokens.close();
  await Promise.all([tasks.close(), followers.close(), attributes.close()]);
  await dir.remove();
});

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, token = tokens.adminToken) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>),
  };
}

async function finished(id: string, token = tokens.adminToken): Promise<AudienceJob> {
  let job: AudienceJob | undefined;
  await waitFor(
    async () => {
      job = (await call('GET', `/api/v1/audiences/${id}`, undefined, token)).body as AudienceJob;
      return job.state !== 'running';
    },
    { message: `audience job ${id} to end` },
  );
  return job!;
}

async function listFiles(): Promise<string[]> {
  return (await readdir(`${dir.path}/lists`).catch(() => [])).filter((name) => !name.startsWith('b_'));
}

/** A source whose read yields `first`, then waits for `release()`, then yields nothing more or throws `failure`. */
function gatedSource(first: number[], failure?: Error): AudienceSource & { release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    kind: 'table',
    description: { table: 'gated', column: 'uin' },
    release: () => release(),
    read: ({ signal }) =>
      (async function* (): AsyncGenerator<AudienceBatch> {
        yield { uins: Uint32Array.from(first), bad: { null: 1 } };
        await Promise.race([
          gate,
          new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
        ]);
        if (failure !== undefined) throw failure;
      })(),
  };
}

describe('audience jobs', () => {
  it('builds a list from an account’s followers: 202 with the job, then done with the stored list and its counts', async () => {
    await start();
    const follow = (uin: number, following = true, accountId = 'acme') => ({
      accountId,
      uin,
      following,
      at: 1000 + uin,
    });
    expect(
      (
        await call('POST', '/api/v1/follows', {
          changes: [follow(30), follow(10), follow(20), follow(40), follow(12, true, 'globex')],
        })
      ).body,
    ).toEqual({ applied: 5, stale: 0 });
    await call('POST', '/api/v1/follows', { changes: [{ ...follow(40, false), at: 5000 }] });

    const created = await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } });
    expect(created.status).toBe(202);
    expect(created.headers.get('location')).toBe(`/api/v1/audiences/${created.body!.id}`);
    expect(created.body).toMatchObject({
      accountId: 'acme',
      source: { kind: 'followers', accountId: 'acme' },
      state: 'running',
      finishedAt: null,
    });

    const job = await finished(created.body!.id);
    expect(job).toMatchObject({
      state: 'done',
      listId: created.body!.listId,
      list: { id: created.body!.listId, accountId: 'acme', count: 3, sorted: true, unique: true },
      report: { valid: 3, bad: { total: 0 } },
    });
    expect(job.progress.uins).toBe(3);
    expect((await call('GET', `/api/v1/lists/${job.listId}`)).body).toMatchObject({ id: job.listId, count: 3 });
    expect([...(await loadRecipientList(lists.pathOf(job.listId), { uinLimit: 2 ** 24 }))]).toEqual([10, 20, 30]);
  });

  it('keeps a local copy of an account past audiences.followerCopyThreshold, reads it next time, and feeds it the follow changes', async () => {
    await start({ audiences: { followerCopyThreshold: 3 } });
    const follow = (uin: number, following = true, at = 1, accountId = 'acme') => ({ accountId, uin, following, at });
    await call('POST', '/api/v1/follows', { changes: [follow(1), follow(2), follow(3), follow(4, true, 1, 'small')] });
    const run = async (accountId: string) =>
      finished((await call('POST', '/api/v1/audiences', { accountId, source: { kind: 'followers' } })).body!.id);

    expect((await run('acme')).source).toEqual({ kind: 'followers', accountId: 'acme' });
    expect(await copies.has('acme')).toBe(true);
    await run('small');
    expect(await copies.has('small')).toBe(false); // 1 follower: under the threshold

    await call('POST', '/api/v1/follows', { changes: [follow(2, false, 5), follow(9, true, 5)] });
    const second = await run('acme');
    expect(second.source).toEqual({ kind: 'followers', accountId: 'acme', localCopy: true });
    expect(copies.lastVerdict('acme')).toMatchObject({ at: 'copy' });
    expect([...(await loadRecipientList(lists.pathOf(second.listId), { uinLimit: 2 ** 24 }))]).toEqual([1, 3, 9]);
  });

  it('builds a list from a targeting query over the users’ attributes', async () => {
    await start();
    const day = 86_400_000;
    const now = Date.UTC(2025, 0, 31);
    const users = [
      { uin: 1, region: 'cn-gd', gender: 'f', activeAt: now - 2 * day, tags: ['vip'] },
      { uin: 2, region: 'cn-gd', gender: 'm', activeAt: now - 60 * day },
      { uin: 3, region: 'cn-bj', gender: 'f', activeAt: now },
      { uin: 70_000, region: 'cn-gd', tags: ['churned'] },
      { uin: 70_001, region: 'cn-gd', activeAt: now },
    ];
    expect((await call('POST', '/api/v1/user-attributes', { users })).body).toEqual({ stored: 5 });
    expect((await call('GET', '/api/v1/user-attributes/3')).body).toEqual(users[2]);

    const created = await call('POST', '/api/v1/audiences', {
      accountId: 'acme',
      source: { kind: 'targeting', query: 'region:cn-gd AND NOT tag:churned AND (active-since:30d OR tag:vip)' },
    });
    expect(created.status).toBe(202);
    const job = await finished(created.body!.id);
    expect(job).toMatchObject({
      state: 'done',
      source: { kind: 'targeting', query: 'region:cn-gd AND NOT tag:churned AND (active-since:30d OR tag:vip)' },
      list: { count: 2 },
    });
    expect([...(await loadRecipientList(lists.pathOf(job.listId), { uinLimit: 2 ** 24 }))]).toEqual([1, 70_001]);

    expect((await call('DELETE', '/api/v1/user-attributes/70001')).status).toBe(204);
    expect((await call('GET', '/api/v1/user-attributes/70001')).status).toBe(404);
  });

  it('refuses a malformed query at once with its position, and starts no job', async () => {
    await start();
    const answer = await call('POST', '/api/v1/audiences', {
      accountId: 'acme',
      source: { kind: 'targeting', query: 'region:cn-gd AND gender:female' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body!.error).toMatchObject({
      code: 'QUERY_INVALID',
      details: { position: 24, found: 'female', expected: ['f', 'm', 'x'] },
    });
    expect((await call('GET', '/api/v1/audiences')).body).toEqual({ jobs: [], nextCursor: null });

    expect(
      (await call('POST', '/api/v1/audiences/check-query', { query: 'tag:a OR (tag:b' })).body!.error,
    ).toMatchObject({ code: 'QUERY_INVALID', details: { position: 15 } });
    expect((await call('POST', '/api/v1/audiences/check-query', { query: 'tag:a OR tag:b' })).body).toEqual({
      valid: true,
    });
    expect(
      (await call('GET', `/api/v1/audiences/check-query?query=${encodeURIComponent('tag:a OR (tag:b')}`)).body!.error,
    ).toMatchObject({ code: 'QUERY_INVALID', details: { position: 15 } });
    expect(
      (await call('GET', `/api/v1/audiences/check-query?query=${encodeURIComponent('gender:f')}`, undefined, operator))
        .body,
    ).toEqual({ valid: true });
  });

  it('refuses a body that does not fit its kind, naming the field', async () => {
    await start();
    const field = async (source: unknown) => {
      const answer = await call('POST', '/api/v1/audiences', { accountId: 'acme', source });
      expect(answer.status).toBe(400);
      return answer.body!.error.details?.field;
    };
    expect(await field({ kind: 'targeting' })).toBe('source.query');
    expect(await field({ kind: 'followers', query: 'tag:x' })).toBe('source.query');
    expect(await field({ kind: 'table', table: 'x; DROP TABLE y', column: 'uin' })).toBe('source.table');
    expect(
      await field({ kind: 'table', table: 'crm', column: 'uin', where: [{ column: 'a', op: 'like', value: '%' }] }),
    ).toBe('source.where[0].op');
    expect(await field({ kind: 'everyone' })).toBe('source.kind');
  });

  it('shows progress while a job runs, and a source failing half way leaves no list and a clear error', async () => {
    const source = gatedSource(
      [5, 6, 7],
      new HeraldError(ErrorCodes.UNAVAILABLE, 'connection lost', { retriable: true }),
    );
    tableSource = () => source;
    await start();
    const created = await call('POST', '/api/v1/audiences', {
      accountId: 'acme',
      source: { kind: 'table', table: 'crm', column: 'uin' },
    });
    await waitFor(
      async () =>
        ((await call('GET', `/api/v1/audiences/${created.body!.id}`)).body as AudienceJob).progress.uins === 3,
      { message: 'progress' },
    );
    expect((await call('GET', `/api/v1/audiences/${created.body!.id}`)).body).toMatchObject({
      state: 'running',
      progress: { uins: 3, bad: { null: 1 } },
    });

    source.release();
    const job = await finished(created.body!.id);
    expect(job.state).toBe('failed');
    expect(job.error).toMatchObject({
      code: 'AUDIENCE_SOURCE_FAILED',
      details: { source: 'table', read: 3, causeCode: 'UNAVAILABLE' },
    });
    expect(job.error!.message).toMatch(/failed after 3 uins: connection lost; nothing was stored/);
    expect(job.list).toBeUndefined();
    expect((await call('GET', `/api/v1/lists/${job.listId}`)).body!.error.code).toBe('LIST_NOT_FOUND');
    expect(await listFiles()).toEqual([]);
  });

  it('fails an empty audience with LIST_EMPTY: a task never starts on it', async () => {
    await start();
    const created = await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } });
    const job = await finished(created.body!.id);
    expect(job).toMatchObject({ state: 'failed', error: { code: 'LIST_EMPTY' } });
    expect((await call('GET', `/api/v1/lists/${job.listId}`)).status).toBe(404);
  });

  it('runs at most audiences.maxRunningJobs at once (503, retriable), and a cancelled job keeps nothing', async () => {
    const source = gatedSource([1]);
    tableSource = () => source;
    await start({ audiences: { maxRunningJobs: 1 } });
    const first = await call('POST', '/api/v1/audiences', {
      accountId: 'acme',
      source: { kind: 'table', table: 'crm', column: 'uin' },
    });
    expect(first.status).toBe(202);
    const second = await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } });
    expect(second.status).toBe(503);
    expect(second.body!.error.code).toBe('UNAVAILABLE');

    const cancelled = await call('DELETE', `/api/v1/audiences/${first.body!.id}`);
    expect(cancelled.body).toMatchObject({ state: 'cancelled' });
    expect(await listFiles()).toEqual([]);
    expect((await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } })).status).toBe(
      202,
    );
  });

  it('lists jobs newest first a page at a time, by limit and cursor', async () => {
    await start();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } })).body!.id,
      );
    await Promise.all(ids.map((id) => finished(id)));
    const all = (await call('GET', '/api/v1/audiences')).body!;
    expect(all.nextCursor).toBeNull();
    const order = (all.jobs as AudienceJob[]).map((job) => job.id);
    expect(order.slice().sort()).toEqual(ids.slice().sort());
    const first = (await call('GET', '/api/v1/audiences?limit=2')).body!;
    expect((first.jobs as AudienceJob[]).map((job) => job.id)).toEqual(order.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (
      await call('GET', `/api/v1/audiences?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`)
    ).body!;
    expect(second).toEqual({ jobs: [expect.objectContaining({ id: order[2] })], nextCursor: null });
    for (const bad of ['limit=0', 'limit=1001', 'cursor=nonsense'])
      expect((await call('GET', `/api/v1/audiences?${bad}`)).status).toBe(400);
  });

  it('aborts running jobs when the server closes, removing their files', async () => {
    const source = gatedSource([1, 2]);
    tableSource = () => source;
    await start();
    const created = await call('POST', '/api/v1/audiences', {
      accountId: 'acme',
      source: { kind: 'table', table: 'crm', column: 'uin' },
    });
    expect(created.status).toBe(202);
    await app.close();
    expect(await listFiles()).toEqual([]);
  });
});

describe('audience access', () => {
  it('an operator uses its own accounts only; another account’s job answers like a missing one', async () => {
    await start();
    await followers.applyFollows([
      { accountId: 'globex', uin: 1, following: true, at: 1 },
      { accountId: 'acme', uin: 2, following: true, at: 1 },
    ]);
    const foreign = await call('POST', '/api/v1/audiences', { accountId: 'globex', source: { kind: 'followers' } });
    expect(foreign.status).toBe(202);

    expect(
      (await call('POST', '/api/v1/audiences', { accountId: 'globex', source: { kind: 'followers' } }, operator)).body!
        .error,
    ).toEqual({
      code: 'ACCOUNT_NOT_FOUND',
      message: 'account globex not found',
      details: { accountId: 'globex' },
    });
    const seen = await call('GET', `/api/v1/audiences/${foreign.body!.id}`, undefined, operator);
    const missing = await call('GET', '/api/v1/audiences/a_nothing_here', undefined, operator);
    expect([seen.status, missing.status]).toEqual([404, 404]);
    expect(seen.body!.error.code).toBe('AUDIENCE_JOB_NOT_FOUND');
    expect(missing.body!.error.code).toBe('AUDIENCE_JOB_NOT_FOUND');
    expect((await call('DELETE', `/api/v1/audiences/${foreign.body!.id}`, undefined, operator)).status).toBe(404);

    const own = await call('POST', '/api/v1/audiences', { accountId: 'acme', source: { kind: 'followers' } }, operator);
    expect(own.status).toBe(202);
    await finished(own.body!.id, operator);
    expect(
      ((await call('GET', '/api/v1/audiences', undefined, operator)).body!.jobs as AudienceJob[]).map((job) => job.id),
    ).toEqual([own.body!.id]);
    expect(((await call('GET', '/api/v1/audiences')).body!.jobs as AudienceJob[]).map((job) => job.id).sort()).toEqual(
      [foreign.body!.id, own.body!.id].sort(),
    );
  });

  it('the table kind and the feeds are for admins: an operator gets 403 FORBIDDEN', async () => {
    await start();
    expect(
      (
        await call(
          'POST',
          '/api/v1/audiences',
          { accountId: 'acme', source: { kind: 'table', table: 'crm', column: 'uin' } },
          operator,
        )
      ).body!.error.code,
    ).toBe('FORBIDDEN');
    expect(
      (
        await call(
          'POST',
          '/api/v1/follows',
          { changes: [{ accountId: 'acme', uin: 1, following: true, at: 1 }] },
          operator,
        )
      ).status,
    ).toBe(403);
    expect((await call('POST', '/api/v1/user-attributes', { users: [{ uin: 1 }] }, operator)).status).toBe(403);
    expect((await call('GET', '/api/v1/user-attributes/1', undefined, operator)).status).toBe(403);
  });

  it('a kind whose adapter is not wired is refused, naming source.kind', async () => {
    app = createApiServer({
      config: compileConfig({}),
      store: tasks,
      access: tokens.access,
      lists,
      audiences: {},
      toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
      clock: { now: () => 0 },
      logger: noopLogger,
      blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    for (const source of [
      { kind: 'followers' },
      { kind: 'targeting', query: 'tag:x' },
      { kind: 'table', table: 't', column: 'uin' },
    ]) {
      const answer = await call('POST', '/api/v1/audiences', { accountId: 'acme', source });
      expect(answer.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'source.kind' } });
    }
  });
});
