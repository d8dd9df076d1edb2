import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { decodeListHeader, ListFlags } from '@herald/core/recipient-list';
import { ListFormatError, ValidationError } from '@herald/core';
import { loadRecipientList } from './list-reader';
import { ListRepository } from './list-repository';

const U32 = 2 ** 32;
const LIMITS = { accountId: 'acme', uinLimit: U32, maxBytes: 1 << 26 };
let dir: string;
let repo: ListRepository;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-audience-text-'));
  repo = new ListRepository(join(dir, 'lists'), { clock: { now: () => 1_700_000_000_000 } });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function files(): Promise<string[]> {
  return readdir(join(dir, 'lists')).catch(() => []);
}

async function rejection(promise: Promise<unknown>): Promise<ListFormatError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ListFormatError);
  return error as ListFormatError;
}

describe('ListRepository.importText', () => {
  it('stores the uins as a binary list, with the counts of what was skipped', async () => {
    const imported = await repo.importText(chunked('uin\n3\n\n1\n2\n2\n', 3), LIMITS);
    expect(imported.meta).toEqual({
      id: imported.meta.id,
      accountId: 'acme',
      count: 4,
      checksum: expect.any(Number),
      sorted: false,
      unique: false,
      bytes: 32 + 4 * 8,
      createdAt: 1_700_000_000_000,
    });
    expect(imported.uploadBytes).toBe(13);
    expect(imported.report).toMatchObject({
      lines: 6,
      valid: 4,
      blank: 1,
      header: { line: 1, fields: ['uin'] },
      bad: { total: 0 },
    });
    const path = repo.pathOf(imported.meta.id);
    expect(Array.from(await loadRecipientList(path, { uinLimit: U32 }))).toEqual([3, 1, 2, 2]);
    expect(decodeListHeader(await readFile(path)).bodyCrc).toBe(imported.meta.checksum);
    expect(await files()).toEqual([`${imported.meta.id}.hrl`]);
  });

  it('records sorted and unique in the header when the text was', async () => {
    const { meta } = await repo.importText(Readable.from([Buffer.from('1\n5\n9\n')]), LIMITS);
    expect(meta).toMatchObject({ sorted: true, unique: true });
    expect(decodeListHeader(await readFile(repo.pathOf(meta.id))).flags).toBe(ListFlags.SORTED | ListFlags.UNIQUE);
  });

  it('accepts bad lines up to maxBadRatio of the lines, and reports them', async () => {
    const text = Array.from({ length: 99 }, (_, i) => String(i)).join('\n') + '\n-1\n';
    const imported = await repo.importText(chunked(text, 64), LIMITS); // 1 bad of 100: 1%, the default limit
    expect(imported.meta.count).toBe(99);
    expect(imported.report.bad).toMatchObject({ negative: 1, total: 1 });
    expect(imported.report.firstBad).toEqual([{ line: 100, reason: 'negative' }]);
  });

  it('rejects more bad lines than maxBadRatio allows, with the counts, leaving nothing behind', async () => {
    const text = '1\n2\nabc\n-4\n5.5\n4294967296\n7\n';
    const error = await rejection(repo.importText(chunked(text, 5), { ...LIMITS, maxBadRatio: 0.5 }));
    expect(error.code).toBe('LIST_TOO_MANY_BAD_LINES');
    expect(error.details).toMatchObject({
      maxBadRatio: 0.5,
      valid: 3,
      bad: { not_a_number: 1, negative: 1, fraction: 1, out_of_range: 1, too_long: 0, missing_column: 0, total: 4 },
      firstBad: [
        { line: 3, reason: 'not_a_number' },
        { line: 4, reason: 'negative' },
        { line: 5, reason: 'fraction' },
        { line: 6, reason: 'out_of_range' },
      ],
    });
    expect(await files()).toEqual([]);
    // maxBadRatio 0: one bad line is too many.
    expect(
      (await rejection(repo.importText(chunked('1\n2\nx\n', 4), { ...LIMITS, header: 'absent', maxBadRatio: 0 }))).code,
    ).toBe('LIST_TOO_MANY_BAD_LINES');
    // maxBadRatio 1: accepted while one uin is valid ...
    expect(
      (await repo.importText(chunked('x\ny\n1\n', 4), { ...LIMITS, header: 'absent', maxBadRatio: 1 })).meta.count,
    ).toBe(1);
    // ... and rejected when none is.
    expect(
      (await rejection(repo.importText(chunked('x\ny\n', 4), { ...LIMITS, header: 'absent', maxBadRatio: 1 }))).code,
    ).toBe('LIST_TOO_MANY_BAD_LINES');
    expect((await files()).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('gives LIST_EMPTY for nothing but blank lines or a header', async () => {
    for (const text of ['', '\n\n  \r\n', 'uin\n']) {
      expect((await rejection(repo.importText(chunked(text, 4), LIMITS))).code).toBe('LIST_EMPTY');
    }
    expect(await files()).toEqual([]);
  });

  it('reads CSV with a named column', async () => {
    const { meta, report } = await repo.importText(chunked('name,uin\r\nann,10\r\nbob,20\r\n', 7), {
      ...LIMITS,
      format: 'csv',
      column: 'uin',
    });
    expect(meta.count).toBe(2);
    expect(report).toMatchObject({ format: 'csv', column: 2 });
    expect(Array.from(await loadRecipientList(repo.pathOf(meta.id), { uinLimit: U32 }))).toEqual([10, 20]);
  });

  it('refuses bad options, an unknown column and over-limit uploads, leaving nothing behind', async () => {
    await expect(repo.importText(chunked('1\n', 4), { ...LIMITS, maxBadRatio: 1.5 })).rejects.toThrow(ValidationError);
    await expect(repo.importText(chunked('1\n', 4), { ...LIMITS, maxBadRatio: Number.NaN })).rejects.toThrow(
      ValidationError,
    );
    await expect(repo.importText(chunked('1\n', 4), { ...LIMITS, accountId: '' })).rejects.toThrow(ValidationError);
    await expect(
      repo.importText(chunked('a,b\n1,2\n', 4), { ...LIMITS, format: 'csv', column: 'uin' }),
    ).rejects.toThrow(/not in the header/);
    await expect(repo.importText(chunked('1\n2\n3\n4\n', 2), { ...LIMITS, maxBytes: 5 })).rejects.toThrow(
      /5-byte limit/,
    );
    expect((await files()).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('accepts string chunks (a stream with an encoding set)', async () => {
    const { meta } = await repo.importText(Readable.from(['1\n2', '\n3\n']), LIMITS);
    expect(meta.count).toBe(3);
  });

  it('streams a large list through in chunks and stores every uin in order', async () => {
    const n = 300_000;
    async function* lines(): AsyncGenerator<Uint8Array> {
      for (let start = 0; start < n; start += 10_000) {
        yield Buffer.from(
          Array.from({ length: 10_000 }, (_, i) => String(((start + i) * 2_654_435_761) >>> 0)).join('\r\n') + '\r\n',
        );
      }
    }
    const { meta, report } = await repo.importText(lines(), LIMITS);
    expect(meta.count).toBe(n);
    expect(report).toMatchObject({ lines: n, valid: n, bad: { total: 0 } });
    const uins = await loadRecipientList(repo.pathOf(meta.id), { uinLimit: U32 });
    for (let i = 0; i < n; i += 9_973) expect(uins[i]).toBe((i * 2_654_435_761) >>> 0);
  });
});
