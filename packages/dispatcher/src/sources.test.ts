import { ListFlags, type Task, type TaskStore } from '@herald/core';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, newTask, type TempDir } from '@herald/testing';
import { accountBlacklistId, GLOBAL_BLACKLIST_ID, repositoryBlacklists, storeLedger } from './sources';

const UIN_LIMIT = 2 ** 20;
let dir: TempDir;
let lists: ListRepository;

beforeEach(async () => {
  dir = await makeTempDir('herald-sources-');
  lists = new ListRepository(dir.path);
});
afterEach(async () => {
  await dir.remove();
});

describe('list ids', () => {
  it('are valid repository ids', () => {
    expect(GLOBAL_BLACKLIST_ID).toBe('b_global');
    expect(accountBlacklistId('acme_2')).toBe('b_acct_acme_2');
    expect(() => lists.pathOf(GLOBAL_BLACKLIST_ID)).not.toThrow();
    expect(() => lists.pathOf(accountBlacklistId('acme_2'))).not.toThrow();
  });
});

describe('repositoryBlacklists', () => {
  it('returns undefined when no blacklist is stored', async () => {
    const source = repositoryBlacklists(lists, UIN_LIMIT);
    expect(await source.global()).toBeUndefined();
    expect(await source.forAccount('acme')).toBeUndefined();
  });

  it('returns the stored lists as sorted, distinct uins', async () => {
    await writeRecipientListFile(lists.pathOf(GLOBAL_BLACKLIST_ID), Uint32Array.of(9, 1, 9, 4, 1));
    await writeRecipientListFile(lists.pathOf(accountBlacklistId('acme')), Uint32Array.of(70_000, 3, 3));
    const source = repositoryBlacklists(lists, UIN_LIMIT);
    expect([...((await source.global()) ?? [])]).toEqual([1, 4, 9]);
    expect([...((await source.forAccount('acme')) ?? [])]).toEqual([3, 70_000]);
    expect(await source.forAccount('other')).toBeUndefined();
  });
});

describe('storeLedger', () => {
  const task = (id: number, filteredListId: string | null): Task => ({ ...newTask({ accountId: 'acme', contentCrc: 77 }), id, filteredListId }) as unknown as Task;

  /** Only what the ledger calls; records its queries. */
  function fakeStore(tasks: Task[]): TaskStore & { queries: [string, number][] } {
    const queries: [string, number][] = [];
    const store = {
      queries,
      async listTasksByContent(accountId: string, contentCrc: number) {
        queries.push([accountId, contentCrc]);
        return tasks;
      },
    };
    return store as unknown as TaskStore & { queries: [string, number][] };
  }

  async function collect(iterable: AsyncIterable<Uint32Array>): Promise<number[][]> {
    const out: number[][] = [];
    for await (const audience of iterable) out.push([...audience]);
    return out;
  }

  it("yields earlier tasks' filtered lists, skipping the task itself, tasks without a list, and lists that are gone", async () => {
    const sorted = ListFlags.SORTED | ListFlags.UNIQUE;
    await writeRecipientListFile(lists.pathOf('f_1'), Uint32Array.of(1, 2), sorted);
    await writeRecipientListFile(lists.pathOf('f_4'), Uint32Array.of(40), sorted);
    await writeRecipientListFile(lists.pathOf('f_9'), Uint32Array.of(90, 91), sorted);
    const store = fakeStore([task(1, 'f_1'), task(2, null), task(3, 'f_3'), task(4, 'f_4'), task(9, 'f_9')]);

    expect(await collect(storeLedger(store, lists, UIN_LIMIT).audiencesOf('acme', 77, 9))).toEqual([[1, 2], [40]]);
    expect(store.queries).toEqual([['acme', 77]]);
  });

  it('yields nothing when the store knows no such task', async () => {
    expect(await collect(storeLedger(fakeStore([]), lists, UIN_LIMIT).audiencesOf('acme', 77, 1))).toEqual([]);
  });
});
