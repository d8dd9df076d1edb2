import { makeTempDir, type TempDir } from '@herald/testing';
import { ClassicLevel } from 'classic-level';
import type { Db } from './offline-cursors';
import { holdingTasks } from './offline-holds';
import { shelfRecordKey, UNGROUPED } from './offline-keys';
import type { RecordSpans, TaskSpans } from './offline-spans';
import { encodeUins } from './uin-records';

/** Spans that name, for every task, the record starting at `first`: right or wrong, as a test needs. */
function spansNaming(first: number | undefined): RecordSpans {
  const task = { recordHolding: () => first } as unknown as TaskSpans;
  return { known: () => task } as unknown as RecordSpans;
}

describe('holdingTasks', () => {
  let dir: TempDir;
  let db: Db;
  beforeEach(async () => {
    dir = await makeTempDir('herald-offline-holds-');
    db = new ClassicLevel<Buffer, Buffer>(dir.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    // Task 1 holds 5 and 9 in one record starting at 5; task 2 holds 7 in one starting at 7.
    await db.put(shelfRecordKey({ range: 0, taskId: 1, group: UNGROUPED }, 5), encodeUins(Uint32Array.of(5, 9)));
    await db.put(shelfRecordKey({ range: 0, taskId: 2, group: UNGROUPED }, 7), encodeUins(Uint32Array.of(7)));
  });
  afterEach(async () => {
    await db.close();
    await dir.remove();
  });

  const candidates = [
    { taskId: 1, groups: [UNGROUPED] },
    { taskId: 2, groups: [UNGROUPED] },
  ];

  it('answers from the records the spans name when they hold the uin', async () => {
    expect(await holdingTasks(db, spansNaming(5), 0, 9, candidates)).toEqual([true, false]);
  });

  it('seeks on disk what wrong or missing spans cannot prove', async () => {
    expect(await holdingTasks(db, spansNaming(7), 0, 9, candidates)).toEqual([true, false]);
    expect(await holdingTasks(db, spansNaming(123), 0, 7, candidates)).toEqual([false, true]);
    expect(await holdingTasks(db, spansNaming(undefined), 0, 5, candidates)).toEqual([true, false]);
  });
});
