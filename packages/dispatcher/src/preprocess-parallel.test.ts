import { readFile } from 'node:fs/promises';
import { compileConfig } from '@herald/core/config';
import { mulberry32 } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import { decodeRemovedHeader } from '@herald/core/fate';
import { ListRepository, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, type TempDir } from '@herald/testing';
import { buildFilterChain } from './filters/chain';
import type { PreprocessResult } from '@herald/transport';
import { PARALLEL_FROM, preprocess, type PreprocessDeps } from './preprocess';

type Done = Extract<PreprocessResult, { ok: true }>;

describe('preprocess in worker threads', () => {
  let dir: TempDir;
  let lists: ListRepository;
  beforeAll(async () => {
    dir = await makeTempDir('herald-preprocess-parallel-');
    lists = new ListRepository(dir.path);
  });
  afterAll(async () => {
    await dir.remove();
  });

  const config = compileConfig({ uinSpaceBits: 24 });
  const deps = (filterWorkers: number): PreprocessDeps => ({
    config,
    lists,
    filters: buildFilterChain({
      blacklists: {
        global: async () => Uint32Array.from({ length: 1000 }, (_, i) => i * 97),
        forAccount: async () => Uint32Array.of(5, 6, 7),
      },
      ledger: {
        async *audiencesOf() {
          yield Uint32Array.from({ length: 20_000 }, (_, i) => i * 211);
        },
      },
    }),
    filterWorkers,
    planUnits: (_taskId, count) => [{ start: 0, end: count, executorId: 'e1' }],
    logger: noopLogger,
  });
  const request = (taskId: number) => ({
    kind: 'preprocess.request' as const,
    taskId,
    epoch: 1,
    listId: 'l_big',
    accountId: 'acme',
    contentCrc: 1,
    speed: 0,
  });

  it('writes the same filtered list, byte for byte, and the same report as one thread', async () => {
    const next = mulberry32(8);
    // A list past PARALLEL_FROM, a fifth of it repeats.
    const list = Uint32Array.from({ length: PARALLEL_FROM + 1000 }, () => next() % (PARALLEL_FROM * 4));
    await writeRecipientListFile(lists.pathOf('l_big'), list);
    const single = (await preprocess(request(1), deps(1))) as Done;
    const parallel = (await preprocess(request(2), deps(2))) as Done;
    expect(
      (await readFile(lists.pathOf(parallel.filteredListId))).equals(
        await readFile(lists.pathOf(single.filteredListId)),
      ),
    ).toBe(true);
    expect(parallel).toEqual({ ...single, taskId: 2, filteredListId: parallel.filteredListId });
    expect(single.total).toBe(list.length);
    expect(single.kept + Object.values(single.removed).reduce((a, b) => a + (b ?? 0), 0)).toBe(single.total);
    // One thread records every link's removals; in workers, dedupe, blacklist and no-resend are only counted.
    const header = async (done: Done) =>
      decodeRemovedHeader(await readFile(removedPathOf(lists.pathOf(done.filteredListId))));
    const one = await header(single);
    expect(one.complete).toBe(true);
    expect(Object.fromEntries(one.sections.map((s) => [s.reason, s.count]))).toEqual(single.removed);
    expect(await header(parallel)).toMatchObject({ complete: false, sections: [] });
  });
});
