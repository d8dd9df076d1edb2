import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AudienceSourceError, ErrorCodes, HeraldError, ListFormatError, QueryError } from '@herald/core';
import type { AudienceBatch, AudienceSource } from '@herald/core/ports';
import { loadRecipientList } from './list-reader';
import { ListRepository } from './list-repository';
import { importFromSource, type SourceImportProgress } from './source-import';

const U32 = 2 ** 32;
let dir: string;
let lists: ListRepository;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-audience-source-'));
  lists = new ListRepository(join(dir, 'lists'), { clock: { now: () => 1_700_000_000_000 } });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function files(): Promise<string[]> {
  return readdir(join(dir, 'lists')).catch(() => []);
}

/** A source yielding `batches`, then throwing `failure` if given; records whether it was let go. */
function scripted(batches: AudienceBatch[], failure?: unknown): AudienceSource & { released: boolean } {
  const source = {
    kind: 'scripted',
    description: { batches: batches.length },
    released: false,
    read: () =>
      (async function* () {
        try {
          for (const batch of batches) yield batch;
          if (failure !== undefined) throw failure;
        } finally {
          source.released = true;
        }
      })(),
  };
  return source;
}

const u = (...uins: number[]) => Uint32Array.from(uins);

describe('importFromSource', () => {
  it('stores a source as an ordinary sorted, unique list and reports the counts by reason', async () => {
    const progress: SourceImportProgress[] = [];
    const source = scripted([
      { uins: u(1, 5, 9) },
      { uins: u(), bad: { null: 1 } },
      { uins: u(10, 2 ** 32 - 1), bad: { negative: 1 } },
    ]);
    const { meta, report } = await importFromSource(lists, source, {
      accountId: 'acme',
      uinLimit: U32,
      maxBadRatio: 0.5,
      onProgress: (p) => progress.push(p),
    });
    expect(meta).toMatchObject({
      accountId: 'acme',
      count: 5,
      sorted: true,
      unique: true,
      bytes: 32 + 5 * 8,
      createdAt: 1_700_000_000_000,
    });
    expect(report).toEqual({
      source: 'scripted',
      description: { batches: 3 },
      valid: 5,
      bad: { total: 2, byReason: { null: 1, negative: 1 } },
    });
    expect([...(await loadRecipientList(lists.pathOf(meta.id), { uinLimit: U32 }))]).toEqual([
      1,
      5,
      9,
      10,
      2 ** 32 - 1,
    ]);
    expect(progress.map((p) => p.uins)).toEqual([3, 3, 5]);
    expect(progress[2]!.bad).toEqual({ null: 1, negative: 1 });
    expect(await files()).toEqual([`${meta.id}.hrl`]);
  });

  it('stores under the id it was given', async () => {
    const id = lists.newId();
    const { meta } = await importFromSource(lists, scripted([{ uins: u(3) }]), {
      accountId: 'acme',
      uinLimit: U32,
      listId: id,
    });
    expect(meta.id).toBe(id);
    expect(await lists.exists(id)).toBe(true);
  });

  it('records what it found when a source breaks its ascending promise (flags are never trusted)', async () => {
    const { meta } = await importFromSource(lists, scripted([{ uins: u(5, 3) }]), { accountId: 'acme', uinLimit: U32 });
    expect(meta).toMatchObject({ sorted: false, unique: false, count: 2 });
  });

  it('a source failing half way leaves no list and a clear, typed error that keeps its cause and retriability', async () => {
    const cause = new HeraldError(ErrorCodes.UNAVAILABLE, 'connection lost', { retriable: true });
    const source = scripted([{ uins: u(1, 2, 3) }, { uins: u(4), bad: { null: 2 } }], cause);
    const error = await importFromSource(lists, source, { accountId: 'acme', uinLimit: U32 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AudienceSourceError);
    const failure = error as AudienceSourceError;
    expect(failure.code).toBe('AUDIENCE_SOURCE_FAILED');
    expect(failure.retriable).toBe(true);
    expect(failure.cause).toBe(cause);
    expect(failure.details).toEqual({ source: 'scripted', read: 4, bad: { null: 2 }, causeCode: 'UNAVAILABLE' });
    expect(failure.message).toMatch(/failed after 4 uins: connection lost; nothing was stored/);
    expect(await files()).toEqual([]);
  });

  it('wraps a raw error as not retriable', async () => {
    const error = await importFromSource(lists, scripted([{ uins: u(1) }], new TypeError('boom')), {
      accountId: 'acme',
      uinLimit: U32,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUDIENCE_SOURCE_FAILED', retriable: false });
    expect(await files()).toEqual([]);
  });

  it("passes the source's input errors through as they are", async () => {
    const query = new QueryError('unknown attribute', 0);
    await expect(importFromSource(lists, scripted([], query), { accountId: 'acme', uinLimit: U32 })).rejects.toBe(
      query,
    );
    expect(await files()).toEqual([]);
  });

  it('refuses a uin outside the space as the source failing, storing nothing', async () => {
    const error = await importFromSource(lists, scripted([{ uins: u(1, 16) }]), {
      accountId: 'acme',
      uinLimit: 16,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUDIENCE_SOURCE_FAILED', details: { uin: 16 } });
    expect(await files()).toEqual([]);
  });

  it('rejects an empty source with LIST_EMPTY and too many bad rows with LIST_TOO_MANY_BAD_LINES, storing nothing', async () => {
    await expect(importFromSource(lists, scripted([]), { accountId: 'acme', uinLimit: U32 })).rejects.toMatchObject({
      code: 'LIST_EMPTY',
    });
    const error = await importFromSource(lists, scripted([{ uins: u(1, 2, 3), bad: { out_of_range: 1 } }]), {
      accountId: 'acme',
      uinLimit: U32,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListFormatError);
    expect(error).toMatchObject({
      code: 'LIST_TOO_MANY_BAD_LINES',
      details: { source: 'scripted', valid: 3, bad: { total: 1, byReason: { out_of_range: 1 } }, maxBadRatio: 0.01 },
    });
    await expect(
      importFromSource(lists, scripted([{ uins: u(), bad: { null: 3 } }]), {
        accountId: 'acme',
        uinLimit: U32,
        maxBadRatio: 1,
      }),
    ).rejects.toMatchObject({
      code: 'LIST_TOO_MANY_BAD_LINES',
    });
    expect(await files()).toEqual([]);
  });

  it('stops at an abort between batches, lets the source go and stores nothing', async () => {
    const controller = new AbortController();
    const source = scripted([{ uins: u(1) }, { uins: u(2) }, { uins: u(3) }]);
    const reason = new Error('shutting down');
    const run = importFromSource(lists, source, {
      accountId: 'acme',
      uinLimit: U32,
      signal: controller.signal,
      onProgress: () => controller.abort(reason),
    });
    await expect(run).rejects.toBe(reason);
    expect(source.released).toBe(true);
    expect(await files()).toEqual([]);
  });

  it('refuses bad options before reading anything', async () => {
    const source = scripted([{ uins: u(1) }]);
    await expect(importFromSource(lists, source, { accountId: '', uinLimit: U32 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(
      importFromSource(lists, source, { accountId: 'acme', uinLimit: U32, maxBadRatio: 2 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      importFromSource(lists, source, { accountId: 'acme', uinLimit: U32, listId: '../etc/passwd' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(source.released).toBe(false);
  });
});
