import { writeFile } from 'node:fs/promises';
import { encodeRemovedSets } from '@herald/core/fate';
import type { TaskPage, TaskQuery } from '@herald/core/ports';
import { ListFlags } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { ListRepository, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, type TempDir } from '@herald/testing';
import { HISTORY_SCAN_BUDGET, parseHistoryCursor, recipientHistory, type HistoryQuery } from './recipient-history';

const NOW = 1_700_000_000_000;

/**
 * The history's paging and its bound on work, over many tasks sharing one
 * filtered list (10, 20, 30, 40; 50 blacklisted). The embedded suite
 * (packages/embedded/test/recipient-history.test.ts) runs it end to end.
 */
describe('recipientHistory', () => {
  let dir: TempDir;
  let lists: ListRepository;
  let tasks: Task[];

  beforeEach(async () => {
    dir = await makeTempDir('herald-recipient-history-');
    lists = new ListRepository(dir.path);
    await writeRecipientListFile(
      lists.pathOf('f_1'),
      Uint32Array.of(10, 20, 30, 40),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );
    await writeFile(
      removedPathOf(lists.pathOf('f_1')),
      encodeRemovedSets([{ reason: 'blacklisted', uins: Uint32Array.of(50) }], true),
    );
    tasks = Array.from({ length: 250 }, (_, i) => taskOf(i + 1, 'PAUSED', 'f_1'));
  });
  afterEach(async () => dir.remove());

  const taskOf = (id: number, state: Task['state'], filteredListId: string | null) =>
    ({
      id,
      state,
      filteredListId,
      accountId: 'acme',
      createdAt: NOW - 1000 + id,
      expiresAt: NOW + 1000,
      content: { body: 'b' },
      // A task of one instant without a canary: its lists in uin order (no localGroups, no canary).
      report: {},
    }) as unknown as Task;

  /** The store's descending keyset listing, as the real stores answer it. */
  async function listTasks(query: TaskQuery = {}): Promise<TaskPage> {
    const limit = query.limit ?? 100;
    const matching = tasks
      .filter((t) => query.beforeId === undefined || t.id < query.beforeId)
      .sort((a, b) => b.id - a.id);
    const page = matching.slice(0, limit);
    return { tasks: page, nextCursor: matching.length > limit ? page[page.length - 1]!.id : null };
  }

  const deps = () => ({ store: { listTasks, listUnits: async () => [] }, lists, clock: { now: () => NOW } });
  const query = (uin: number, extra: Partial<HistoryQuery> = {}): HistoryQuery => ({
    uin,
    accountId: 'acme',
    from: 0,
    to: NOW,
    beforeId: undefined,
    limit: 20,
    ...extra,
  });

  it(`reads at most ${HISTORY_SCAN_BUDGET} tasks a request, and says where to go on even with no entry`, async () => {
    const first = await recipientHistory(query(60), deps());
    expect(first).toEqual({ entries: [], scanned: HISTORY_SCAN_BUDGET, lastScannedId: 51 });
    const second = await recipientHistory(query(60, { beforeId: first.lastScannedId }), deps());
    expect(second).toEqual({ entries: [], scanned: 50, lastScannedId: undefined });
  });

  it('pages newest first by limit, and ends without a cursor on the last task', async () => {
    const first = await recipientHistory(query(50, { limit: 3 }), deps());
    expect(first.entries.map((e) => e.taskId)).toEqual([250, 249, 248]);
    expect(first.entries[0]).toMatchObject({ fate: 'removed', link: 'blacklisted', state: 'PAUSED', title: null });
    expect(first.lastScannedId).toBe(248);
    tasks = tasks.slice(0, 3);
    const last = await recipientHistory(query(50, { limit: 3 }), deps());
    expect(last.entries).toHaveLength(3);
    expect(last.lastScannedId).toBeUndefined();
  });

  it('lists a task not filtered yet, its fate unknown, and one ended before filtering as not reached', async () => {
    tasks = [taskOf(1, 'CANCELLED', null), taskOf(2, 'SCHEDULED', null), taskOf(3, 'PAUSED', 'f_1')];
    const page = await recipientHistory(query(60), deps());
    expect(page.entries).toEqual([
      expect.objectContaining({
        taskId: 2,
        state: 'SCHEDULED',
        fate: 'unknown',
        reason: expect.stringMatching(/not filtered yet/),
      }),
      expect.objectContaining({ taskId: 1, state: 'CANCELLED', fate: 'not_reached' }),
    ]);
    expect(page.scanned).toBe(3);
  });

  it("refuses a cursor that is malformed or another uin's, naming it", () => {
    expect(parseHistoryCursor('7-12', 7)).toBe(12);
    for (const bad of ['x', '7-0', '8-12', '7-12-1'])
      expect(() => parseHistoryCursor(bad, 7)).toThrow(expect.objectContaining({ details: { field: 'cursor' } }));
  });
});
