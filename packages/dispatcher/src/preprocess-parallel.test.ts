import { readFile } from 'node:fs/promises';
import { compileConfig } from '@herald/core/config';
import { mulberry32 } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import { classifyFate, decodeRemovedHeader } from '@herald/core/fate';
import { radixSortUint32, uniqueSorted } from '@herald/core/uins';
import { ListRepository, positionInList, removalOf, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, type TempDir } from '@herald/testing';
import { buildFilterChain } from './filters/chain';
import type { PreprocessResult } from '@herald/transport';
import { PARALLEL_FROM, preprocess, type PreprocessDeps } from './preprocess';

type Done = Extract<PreprocessResult, { ok: true }>;

/** How many times `uin` is in the list: its copies, counted once for every uin of the list. */
function copyCounts(list: Uint32Array): Map<number, number> {
  const counts = new Map<number, number>();
  for (const uin of list) counts.set(uin, (counts.get(uin) ?? 0) + 1);
  return counts;
}

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

  it('writes the same filtered list and removed sets, byte for byte, and the same report as one thread', async () => {
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
    // Every link's removals are recorded, in workers as on one thread: the same removed-sets file, byte for byte.
    const removedFile = (done: Done) => readFile(removedPathOf(lists.pathOf(done.filteredListId)));
    expect((await removedFile(parallel)).equals(await removedFile(single))).toBe(true);
    const header = decodeRemovedHeader(await removedFile(parallel));
    expect(header.complete).toBe(true);
    expect(Object.fromEntries(header.sections.map((s) => [s.reason, s.count]))).toEqual(single.removed);

    // The per-recipient answer names the link for a sample of each link's uins, read from the workers' file.
    const answer = async (uin: number) => {
      const listPath = lists.pathOf(parallel.filteredListId);
      const facts = {
        uin,
        taskState: 'SENDING' as const,
        expiresAt: Date.now() + 60_000,
        now: Date.now(),
        filtered: true,
        position: await positionInList(listPath, uin),
        removal: await removalOf(removedPathOf(listPath), uin),
        delivery: { kind: 'none' as const },
        login: { kind: 'none' as const },
      };
      return classifyFate(facts);
    };
    const sorted = radixSortUint32(list.slice());
    const counts = copyCounts(list);
    const copiesOf = (uin: number) => counts.get(uin) ?? 0;
    const blacklist = new Set([...Array.from({ length: 1000 }, (_, i) => i * 97), 5, 6, 7]);
    const sent = new Set(Array.from({ length: 20_000 }, (_, i) => i * 211));
    const distinct = uniqueSorted(sorted.slice());
    // About 40 of each, spread over the list: each answer is some hundred positioned file reads, and
    // under a loaded CI every 37th repeat (~5,000 answers) took most of a minute.
    const sample = (keep: (uin: number) => boolean) => {
      const all = distinct.filter(keep);
      const step = Math.max(1, Math.floor(all.length / 40));
      return all.filter((_, i) => i % step === 0);
    };
    const blacklisted = sample((u) => blacklist.has(u));
    const alreadySent = sample((u) => sent.has(u) && !blacklist.has(u));
    const repeated = sample((u) => copiesOf(u) > 1);
    expect([blacklisted.length, alreadySent.length, repeated.length].every((n) => n >= 5)).toBe(true);
    for (const uin of blacklisted) expect(await answer(uin)).toMatchObject({ fate: 'removed', link: 'blacklisted' });
    for (const uin of alreadySent) expect(await answer(uin)).toMatchObject({ fate: 'removed', link: 'already_sent' });
    for (const uin of repeated) expect((await answer(uin)).duplicateCopiesRemoved).toBe(copiesOf(uin) - 1);
    // Complete: a uin in no set and not in the list was not in the audience, not "unknown".
    const absent = (sorted[sorted.length - 1] ?? 0) + 1;
    expect(await answer(absent)).toEqual({ uin: absent, fate: 'not_in_audience' });
    // Two pre-processings of 10^6 and the answers: seconds on a quiet machine, minutes on a loaded slow one.
  }, 240_000);
});
