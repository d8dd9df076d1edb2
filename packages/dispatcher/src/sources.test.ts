import { ListFlags } from '@herald/core/recipient-list';
import type { AttributeIndex, FollowerStore, TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, newTask, type TempDir } from '@herald/testing';
import {
  accountBlacklistId,
  configuredFollowerCheck,
  GLOBAL_BLACKLIST_ID,
  repositoryBlacklists,
  storeLedger,
  storeTargeting,
} from './sources';

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
  const task = (id: number, filteredListId: string | null, sendAt = 1_000, noResendSince: number | null = null): Task =>
    ({
      ...newTask({ accountId: 'acme', contentCrc: 77, sendAt }),
      id,
      filteredListId,
      noResendSince,
      report: {},
    }) as unknown as Task;

  /** Only what the ledger calls; records its queries. */
  function fakeStore(tasks: Task[]): TaskStore & { queries: [string, number][] } {
    const queries: [string, number][] = [];
    const store = {
      queries,
      async getTask(id: number) {
        return tasks.find((t) => t.id === id);
      },
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

  it("counts only the tasks scheduled after the filtered task's noResendSince (a campaign's firing or window scope)", async () => {
    const sorted = ListFlags.SORTED | ListFlags.UNIQUE;
    for (const id of [1, 2, 3]) await writeRecipientListFile(lists.pathOf(`f_${id}`), Uint32Array.of(id), sorted);
    const tasks = [task(1, 'f_1', 1_000), task(2, 'f_2', 5_000), task(3, 'f_3', 9_000), task(9, null, 10_000, 5_000)];
    // Task 9 looks back to 5000, exclusive: task 2 (at 5000) and task 1 are outside, task 3 inside.
    expect(await collect(storeLedger(fakeStore(tasks), lists, UIN_LIMIT).audiencesOf('acme', 77, 9))).toEqual([[3]]);
    tasks[3] = task(9, null, 10_000, 10_000);
    expect(await collect(storeLedger(fakeStore(tasks), lists, UIN_LIMIT).audiencesOf('acme', 77, 9))).toEqual([]);
    tasks[3] = task(9, null, 10_000, null);
    expect(await collect(storeLedger(fakeStore(tasks), lists, UIN_LIMIT).audiencesOf('acme', 77, 9))).toEqual([
      [1],
      [2],
      [3],
    ]);
  });

  it('yields nothing when the store knows no such task', async () => {
    expect(await collect(storeLedger(fakeStore([]), lists, UIN_LIMIT).audiencesOf('acme', 77, 1))).toEqual([]);
  });
});

describe('configuredFollowerCheck', () => {
  const followerStore = {
    filterFollowers: async (_accountId: string, uins: Uint32Array) => uins.filter((uin) => uin % 2 === 0),
  } as unknown as FollowerStore;

  it('names followers-only exactly the configured accounts', async () => {
    const source = configuredFollowerCheck(['acme', 'news_1'], followerStore);
    expect(await source.followersOnly('acme')).toBe(true);
    expect(await source.followersOnly('news_1')).toBe(true);
    expect(await source.followersOnly('other')).toBe(false);
    expect(await configuredFollowerCheck([], followerStore).followersOnly('acme')).toBe(false);
  });

  it('keeps the followers the store answers', async () => {
    expect([
      ...(await configuredFollowerCheck(['acme'], followerStore).filterFollowers('acme', Uint32Array.of(1, 2, 3, 4))),
    ]).toEqual([2, 4]);
  });
});

describe('storeTargeting', () => {
  const index = {} as AttributeIndex;
  const tasks = new Map<number, Partial<Task>>([
    [1, { id: 1, targeting: 'region:eu AND age:18-24' }],
    [2, { id: 2, targeting: null }],
  ]);
  const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
  const context = (taskId: number) => ({ taskId, accountId: 'acme', contentCrc: 77 });

  it("answers a task's query, and none for an untargeted or unknown task", async () => {
    const source = storeTargeting(store, index);
    expect(source.index).toBe(index);
    expect(await source.queryOf(context(1))).toBe('region:eu AND age:18-24');
    expect(await source.queryOf(context(2))).toBeUndefined();
    expect(await source.queryOf(context(3))).toBeUndefined();
  });
});
