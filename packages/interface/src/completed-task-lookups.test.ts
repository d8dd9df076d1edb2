import { ListFlags } from '@herald/core/recipient-list';
import { emptyReport, type ExecutionUnit, type Task, type TaskState } from '@herald/core/task';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, type TempDir } from '@herald/testing';
import { CompletedTaskLookups } from './completed-task-lookups';

describe('CompletedTaskLookups', () => {
  let dir: TempDir;
  let lists: ListRepository;
  /** listUnits calls by task id: a kept task's units are read once. */
  let unitReads: Map<number, number>;
  const store = {
    listUnits: async (taskId: number) => {
      unitReads.set(taskId, (unitReads.get(taskId) ?? 0) + 1);
      return [{ unitNo: 0, start: 0, end: 2, checkpoint: 2, state: 'DONE' } as ExecutionUnit];
    },
  };
  const taskOf = (id: number, state: TaskState) =>
    ({ id, state, filteredListId: `f_${id}`, report: emptyReport(2) }) as unknown as Task;

  beforeEach(async () => {
    dir = await makeTempDir('herald-completed-lookups-');
    lists = new ListRepository(dir.path);
    unitReads = new Map();
    for (const id of [1, 2, 3, 4])
      await writeRecipientListFile(
        lists.pathOf(`f_${id}`),
        Uint32Array.of(10, 20),
        ListFlags.SORTED | ListFlags.UNIQUE,
      );
  });
  afterEach(() => dir.remove());

  it('keeps nothing for a task that is not COMPLETED: its units may still move', async () => {
    const kept = new CompletedTaskLookups(2);
    for (const state of ['SENDING', 'PAUSED', 'CANCELLED', 'EXPIRED'] as const)
      expect(await kept.acquire(taskOf(1, state), { store, lists })).toBeUndefined();
    expect(unitReads.size).toBe(0);
  });

  it("reads a completed task's units and opens its files once, for the tasks looked up last", async () => {
    const kept = new CompletedTaskLookups(2);
    const ask = async (id: number) => {
      const got = (await kept.acquire(taskOf(id, 'COMPLETED'), { store, lists }))!;
      const position = await got.state.files.positionOf(20);
      got.release();
      return position;
    };
    for (let i = 0; i < 3; i++) expect([await ask(1), await ask(2)]).toEqual([1, 1]);
    expect(Object.fromEntries(unitReads)).toEqual({ 1: 1, 2: 1 });
    // A third task evicts the one asked least recently (1), which is read again when asked next.
    await ask(3);
    await ask(2);
    await ask(1);
    expect(Object.fromEntries(unitReads)).toEqual({ 1: 2, 2: 1, 3: 1 });
    await kept.close();
  });

  it('keeps nothing when the files cannot be opened, and tries again on the next lookup', async () => {
    const kept = new CompletedTaskLookups(2);
    await expect(kept.acquire(taskOf(9, 'COMPLETED'), { store, lists })).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(kept.acquire(taskOf(9, 'COMPLETED'), { store, lists })).rejects.toMatchObject({ code: 'ENOENT' });
    expect(unitReads.get(9)).toBe(2);
    await kept.close();
  });
});
