import { ErrorCodes } from '@herald/core';
import type { NewTask } from '@herald/core/task';
import { makeTempDir, newTask, rejectsWithCode, searchAll, taskStoreConformance, type TempDir } from '@herald/testing';
import { LevelTaskStore } from './level-task-store';

taskStoreConformance('LevelTaskStore', async () => {
  const dir = await makeTempDir('herald-level-tasks-');
  return { store: await LevelTaskStore.open(dir.path), cleanup: dir.remove };
});

describe('LevelTaskStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-tasks-');
  });
  afterEach(() => dir.remove());

  it('stops a search after its scan budget with a cursor to go on, and the walk still finds every match', async () => {
    const store = await LevelTaskStore.open(dir.path, { searchScanBudget: 3 });
    try {
      const ids: number[] = [];
      for (let i = 0; i < 10; i++)
        ids.push((await store.createTask(newTask({ content: { body: i === 8 ? 'the needle' : 'hay' } }), 1)).id);
      // Three tasks read, none matching: an empty page whose cursor is the last task read.
      expect(await store.listTasks({ q: 'needle' })).toEqual({ tasks: [], nextCursor: ids[2] });
      // Newest first, the match is among the three read; the cursor still says more may follow.
      const desc = await store.listTasks({ q: 'needle', order: 'desc' });
      expect({ found: desc.tasks.map((t) => t.id), nextCursor: desc.nextCursor }).toEqual({
        found: [ids[8]],
        nextCursor: ids[7],
      });
      expect(await searchAll(store, { q: 'needle', limit: 1 })).toEqual([ids[8]]);
      expect(await searchAll(store, { q: 'hay', order: 'desc', limit: 2 })).toEqual(
        ids.filter((_, i) => i !== 8).reverse(),
      );
      // A listing without a search is not budgeted: one full page.
      expect((await store.listTasks({ accountId: 'acct-1' })).tasks).toHaveLength(10);
    } finally {
      await store.close();
    }
  });

  it('refuses a scan budget that is not a positive integer', async () => {
    await expect(LevelTaskStore.open(dir.path, { searchScanBudget: 0 })).rejects.toThrow('searchScanBudget');
  });

  it('keeps tasks, units, lists and the id counter across close and reopen', async () => {
    const first = await LevelTaskStore.open(dir.path);
    const a = await first.createTask(newTask(), 1);
    const b = await first.createTask(newTask({ accountId: 'acct-2' }), 2);
    await first.putUnits(b.id, { epoch: 0 }, [{ unitNo: 0, start: 0, end: 10, executorId: 'e' }], 3);
    const filtered = await first.updateTask(b.id, { epoch: 0 }, { filteredListId: 'f' }, 4);
    await first.putList({
      id: 'l',
      accountId: 'acct-2',
      count: 10,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 72,
      createdAt: 5,
    });
    await first.close();

    const second = await LevelTaskStore.open(dir.path);
    expect(await second.getTask(a.id)).toEqual(a);
    expect(await second.getTask(b.id)).toEqual(filtered);
    expect(await second.listUnits(b.id)).toHaveLength(1);
    expect(await second.getList('l')).toMatchObject({ id: 'l', count: 10 });
    expect((await second.listTasksByContent('acct-2', b.contentCrc)).map((t) => t.id)).toEqual([b.id]);
    const c = await second.createTask(newTask(), 6);
    expect(c.id).toBe(b.id + 1);
    await second.close();
  });

  it('keeps unrelayed outbox events and the outbox counter across reopen: ids are not reused once the log is empty', async () => {
    const first = await LevelTaskStore.open(dir.path);
    const a = await first.createTask(newTask(), 1);
    await first.transitionTask(a.id, { epoch: 0 }, 'enqueue', {}, 2);
    const events = await first.readOutbox(0, 10);
    expect(events.map((e) => [e.from, e.to])).toEqual([
      [null, 'CREATED'],
      ['CREATED', 'QUEUED'],
    ]);
    await first.close();

    const second = await LevelTaskStore.open(dir.path);
    expect(await second.readOutbox(0, 10)).toEqual(events);
    await second.markRelayed(events[1]!.id);
    expect(await second.readOutbox(0, 10)).toEqual([]);
    await second.close();

    const third = await LevelTaskStore.open(dir.path);
    const b = await third.createTask(newTask(), 3);
    expect(await third.readOutbox(0, 10)).toEqual([
      { id: events[1]!.id + 1, taskId: b.id, from: null, to: 'CREATED', version: 1, at: 3 },
    ]);
    await third.close();
  });

  it('fails every call after close with STORE_CLOSED; a second close is a no-op', async () => {
    const store = await LevelTaskStore.open(dir.path);
    const task = await store.createTask(newTask(), 1);
    await store.close();
    await store.close();
    const fence = { epoch: 0 };
    const calls: Promise<unknown>[] = [
      store.createTask(newTask(), 1),
      store.getTask(task.id),
      store.listTasks(),
      store.listLiveTasks(),
      store.listTasksByContent('acct-1', 1),
      store.claimTask(task.id, 'x', 1),
      store.transitionTask(task.id, fence, 'enqueue', {}, 1),
      store.updateTask(task.id, fence, {}, 1),
      store.putUnits(task.id, fence, [], 1),
      store.listUnits(task.id),
      store.transitionUnit(task.id, 0, fence, 'assign', 1),
      store.checkpointUnit(task.id, 0, fence, { from: 0, to: 1, delivered: 1, offline: 0 }, 1),
      store.putList({
        id: 'l',
        accountId: 'a',
        count: 0,
        checksum: 0,
        sorted: true,
        unique: true,
        bytes: 32,
        createdAt: 1,
      }),
      store.getList('l'),
      store.readOutbox(0, 1),
      store.markRelayed(1),
    ];
    for (const call of calls) await rejectsWithCode(call, ErrorCodes.STORE_CLOSED);
  });

  it('lets calls already in flight finish before closing', async () => {
    const store = await LevelTaskStore.open(dir.path);
    const creates = Array.from({ length: 10 }, (_, i) => store.createTask(newTask({ listCount: i }), 1));
    const closed = store.close();
    const tasks = await Promise.all(creates);
    await closed;
    const reopened = await LevelTaskStore.open(dir.path);
    expect((await reopened.listTasks()).tasks).toEqual(tasks);
    await reopened.close();
  });

  it('refuses a second open of the same directory with UNAVAILABLE', async () => {
    const store = await LevelTaskStore.open(dir.path);
    await rejectsWithCode(LevelTaskStore.open(dir.path), ErrorCodes.UNAVAILABLE);
    await store.close();
  });

  it('validates new tasks: a CRC outside u32 or a negative listCount fails VALIDATION_FAILED', async () => {
    const store = await LevelTaskStore.open(dir.path);
    const bad: Partial<NewTask>[] = [
      { contentCrc: -1 },
      { contentCrc: 2 ** 32 },
      { listCount: -1 },
      { accountId: '' },
      { priority: 'urgent' as never },
    ];
    for (const overrides of bad)
      await rejectsWithCode(store.createTask(newTask(overrides), 1), ErrorCodes.VALIDATION_FAILED);
    expect((await store.listTasks()).tasks).toEqual([]);
    const task = await store.createTask(newTask(), 1);
    expect(task.id).toBe(1);
    await rejectsWithCode(
      store.updateTask(task.id, { epoch: 0 }, { report: { removed: { bogus: 1 } as never } }, 2),
      ErrorCodes.VALIDATION_FAILED,
    );
    await rejectsWithCode(
      store.updateTask(task.id, { epoch: 0 }, { report: { kept: -3 } }, 2),
      ErrorCodes.VALIDATION_FAILED,
    );
    expect(await store.getTask(task.id)).toEqual(task);
    await store.close();
  });
});
