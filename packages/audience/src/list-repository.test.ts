import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { decodeListHeader, encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
import { ValidationError } from '@herald/core';
import { loadRecipientList, readRecipientListHeader } from './list-reader';
import { ListRepository } from './list-repository';

const U32 = 2 ** 32;
const LIMITS = { accountId: 'acme', uinLimit: U32, maxBytes: 1 << 24 };
let dir: string;
let repo: ListRepository;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-audience-repo-'));
  repo = new ListRepository(join(dir, 'lists'), { clock: { now: () => 1_700_000_000_000 } });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('ListRepository.importStream', () => {
  it('stores a valid upload under a new id and describes it', async () => {
    const uins = Uint32Array.from({ length: 10_000 }, (_, i) => (i * 2_654_435_761) >>> 0);
    const bytes = encodeRecipientList(uins);
    for (const size of [1, 7, 4096, bytes.length]) {
      const meta = await repo.importStream(chunked(bytes, size), LIMITS);
      expect(meta).toEqual({
        id: meta.id,
        accountId: 'acme',
        count: 10_000,
        checksum: decodeListHeader(bytes).bodyCrc,
        sorted: false,
        unique: false,
        bytes: bytes.length,
        createdAt: 1_700_000_000_000,
      });
      expect(await repo.exists(meta.id)).toBe(true);
      expect((await readFile(repo.pathOf(meta.id))).equals(bytes)).toBe(true);
    }
    expect((await readdir(join(dir, 'lists'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes every byte whatever the mix of tiny and large chunks', async () => {
    const uins = Uint32Array.from({ length: 400_000 }, (_, i) => (i * 40_503) >>> 0); // 3.2 MB
    const bytes = encodeRecipientList(uins);
    async function* irregular(): AsyncGenerator<Uint8Array> {
      const sizes = [3, 1 << 20, 65_536, (3 << 20) >> 1, 1, 100_000];
      for (let at = 0, k = 0; at < bytes.length; k++) {
        const size = sizes[k % sizes.length]!;
        yield bytes.subarray(at, at + size);
        at += size;
      }
    }
    const meta = await repo.importStream(irregular(), LIMITS);
    expect(meta.count).toBe(400_000);
    expect((await readFile(repo.pathOf(meta.id))).equals(bytes)).toBe(true);
  });

  it('accepts a Node stream, such as an HTTP request body or a file', async () => {
    const uins = Uint32Array.from({ length: 5000 }, (_, i) => i);
    const file = join(dir, 'upload.bin');
    await writeFile(file, encodeRecipientList(uins));
    const meta = await repo.importStream(createReadStream(file, { highWaterMark: 1000 }), LIMITS);
    expect(meta.count).toBe(5000);
    expect(await loadRecipientList(repo.pathOf(meta.id), { uinLimit: U32 })).toEqual(uins);

    const viaReadable = await repo.importStream(Readable.from([encodeRecipientList(Uint32Array.of(9, 8))]), LIMITS);
    expect(viaReadable.count).toBe(2);
  });

  describe('sorted and unique detection', () => {
    const cases: Array<[string, number[], boolean, boolean]> = [
      ['ascending, distinct', [1, 2, 3, 1000], true, true],
      ['single uin', [42], true, true],
      ['ascending with a repeat', [1, 2, 2, 3], true, false],
      ['unsorted', [3, 1, 2], false, false],
      ['unsorted with a repeat', [3, 3, 1], false, false],
      ['descending at the very end', [0, 1, 2, 3, 4, 5, 6, 7, 8, 0], false, false],
    ];
    it.each(cases)('%s', async (_name, values, sorted, unique) => {
      const bytes = encodeRecipientList(values);
      // Chunks of 8 put every uin in its own chunk; 12 splits uins across chunks.
      for (const size of [8, 12, bytes.length]) {
        const meta = await repo.importStream(chunked(bytes, size), LIMITS);
        expect({ sorted: meta.sorted, unique: meta.unique }).toEqual({ sorted, unique });
      }
    });

    it('works across large uploads with a repeat straddling two chunks', async () => {
      const uins = Uint32Array.from({ length: 100_000 }, (_, i) => i * 3);
      uins[50_000] = uins[49_999]!; // repeat at byte offset 32 + 8 * 50_000
      const bytes = encodeRecipientList(uins);
      const meta = await repo.importStream(chunked(bytes, 32 + 8 * 50_000), LIMITS);
      expect({ sorted: meta.sorted, unique: meta.unique }).toEqual({ sorted: true, unique: false });
    });

    it("stores a header whose flags state the facts, not the uploader's claims", async () => {
      const claimsTooMuch = await repo.importStream(
        chunked(encodeRecipientList([5, 1], ListFlags.SORTED | ListFlags.UNIQUE), 3),
        LIMITS,
      );
      expect((await readRecipientListHeader(repo.pathOf(claimsTooMuch.id))).flags).toBe(0);
      expect(await loadRecipientList(repo.pathOf(claimsTooMuch.id), { uinLimit: U32 })).toEqual(Uint32Array.of(5, 1));

      const claimsNothing = await repo.importStream(chunked(encodeRecipientList([1, 5], 0), 3), LIMITS);
      expect((await readRecipientListHeader(repo.pathOf(claimsNothing.id))).flags).toBe(
        ListFlags.SORTED | ListFlags.UNIQUE,
      );
      expect(claimsNothing.checksum).toBe(decodeListHeader(encodeRecipientList([1, 5])).bodyCrc);
    });
  });

  describe('maxBytes', () => {
    const bytes = encodeRecipientList(Uint32Array.from({ length: 100 }, (_, i) => i)); // 832 bytes

    it('accepts an upload of exactly maxBytes', async () => {
      const meta = await repo.importStream(chunked(bytes, 64), { ...LIMITS, maxBytes: bytes.length });
      expect(meta.bytes).toBe(832);
    });

    it('refuses one byte over, with ValidationError, leaving no file', async () => {
      for (const size of [1, 64, bytes.length]) {
        await expect(
          repo.importStream(chunked(bytes, size), { ...LIMITS, maxBytes: bytes.length - 1 }),
        ).rejects.toBeInstanceOf(ValidationError);
      }
      expect(await readdir(join(dir, 'lists'))).toEqual([]);
    });

    it('refuses as soon as the header declares too many uins, without reading the body', async () => {
      let bodyPulled = false;
      async function* upload(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, 32);
        bodyPulled = true;
        yield bytes.subarray(32);
      }
      const attempt = repo.importStream(upload(), { ...LIMITS, maxBytes: 500 });
      await expect(attempt).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { maxBytes: 500, bytes: 832 },
      });
      expect(bodyPulled).toBe(false);
      expect(await readdir(join(dir, 'lists'))).toEqual([]);
    });

    it('refuses a body that runs past the limit even when the header is small', async () => {
      const lying = Buffer.concat([encodeRecipientList([1]), Buffer.alloc(4096)]);
      await expect(
        repo.importStream(chunked(lying, lying.length), { ...LIMITS, maxBytes: 1000 }),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(await readdir(join(dir, 'lists'))).toEqual([]);
    });
  });

  it('on a failing source, rethrows its error, leaves no file and keeps earlier lists', async () => {
    const kept = await repo.importStream(chunked(encodeRecipientList([1, 2, 3]), 5), LIMITS);
    const boom = new Error('client went away');
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield encodeRecipientList(Uint32Array.from({ length: 1000 }, (_, i) => i)).subarray(0, 500);
      throw boom;
    }
    await expect(repo.importStream(broken(), LIMITS)).rejects.toBe(boom);
    expect(await readdir(join(dir, 'lists'))).toEqual([`${kept.id}.hrl`]);
    expect(await loadRecipientList(repo.pathOf(kept.id), { uinLimit: U32 })).toEqual(Uint32Array.of(1, 2, 3));
  });

  it('destroys a Node stream source when the upload is refused', async () => {
    const source = Readable.from(chunked(Buffer.from('not a recipient list at all, just text'), 4));
    await expect(repo.importStream(source, LIMITS)).rejects.toMatchObject({ code: 'LIST_BAD_MAGIC' });
    expect(source.destroyed).toBe(true);
  });

  it('refuses text chunks (a stream with an encoding set)', async () => {
    const file = join(dir, 'upload.bin');
    await writeFile(file, encodeRecipientList([1]));
    await expect(repo.importStream(createReadStream(file, { encoding: 'latin1' }), LIMITS)).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(await readdir(join(dir, 'lists'))).toEqual([]);
  });

  it('refuses bad options before touching the disk', async () => {
    const bytes = encodeRecipientList([1]);
    await expect(repo.importStream(chunked(bytes, 8), { ...LIMITS, maxBytes: 0 })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(repo.importStream(chunked(bytes, 8), { ...LIMITS, uinLimit: 0 })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(repo.importStream(chunked(bytes, 8), { ...LIMITS, uinLimit: 2 ** 32 + 1 })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(repo.importStream(chunked(bytes, 8), { ...LIMITS, accountId: '' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(stat(join(dir, 'lists'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('ListRepository ids and paths', () => {
  it('makes distinct, file-name-safe ids that pathOf accepts', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(repo.newId());
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^l_[a-z0-9]+_[0-9a-f]{12}$/);
      expect(repo.pathOf(id)).toBe(join(dir, 'lists', `${id}.hrl`));
    }
    expect(repo.newId('f')).toMatch(/^f_/);
    expect(repo.newId()).toMatch(new RegExp(`^l_${(1_700_000_000_000).toString(36)}_`));
  });

  it('refuses a prefix that is not one lowercase letter', () => {
    for (const prefix of ['', 'ab', 'L', '.', '/', '_']) expect(() => repo.newId(prefix)).toThrow(ValidationError);
  });

  const hostile = [
    '',
    'l_',
    '..',
    '../x',
    'l_../../etc/passwd',
    'l_a/b',
    'l_a\\b',
    '/etc/passwd',
    'L_abc',
    'l-abc',
    'l_a.hrl',
    'l_a\0',
    'l_%2e%2e',
    ' l_a',
    'l_' + 'a'.repeat(65),
  ];
  it.each(hostile)('rejects id %j everywhere', async (id) => {
    expect(() => repo.pathOf(id)).toThrow(ValidationError);
    await expect(repo.exists(id)).rejects.toBeInstanceOf(ValidationError);
    await expect(repo.remove(id)).rejects.toBeInstanceOf(ValidationError);
  });

  it('exists and remove', async () => {
    const meta = await repo.importStream(chunked(encodeRecipientList([1]), 40), LIMITS);
    expect(await repo.exists(meta.id)).toBe(true);
    expect(await repo.exists('l_never')).toBe(false);
    expect(await repo.remove(meta.id)).toBe(true);
    expect(await repo.exists(meta.id)).toBe(false);
    expect(await repo.remove(meta.id)).toBe(false);
  });
});
