import { writeFile } from 'node:fs/promises';
import { encodeRemovedSets, onlineBitsOf, rejectionsOf } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { emptyReport, type ExecutionUnit, type Task } from '@herald/core/task';
import { ListRepository, removedPathOf, writeRecipientListFile } from '@herald/audience';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { NO_RECORDS, recipientFate, type RecipientFateDeps } from './recipient-fate';

const NOW = 1_700_000_000_000;

describe('recipientFate', () => {
  let dir: TempDir;
  let lists: ListRepository;
  let records: LevelDeliveryRecordLog;
  let units: ExecutionUnit[];
  const task = {
    id: 9,
    state: 'SENDING',
    filteredListId: 'f_9',
    expiresAt: NOW + 1000,
    report: emptyReport(3),
  } as unknown as Task;

  beforeEach(async () => {
    dir = await makeTempDir('herald-recipient-fate-');
    lists = new ListRepository(dir.path);
    records = await LevelDeliveryRecordLog.open(`${dir.path}/records`);
    // Filtered list 10, 20, 30, 40; 50 was blacklisted.
    await writeRecipientListFile(
      lists.pathOf('f_9'),
      Uint32Array.of(10, 20, 30, 40),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );
    await writeFile(
      removedPathOf(lists.pathOf('f_9')),
      encodeRemovedSets([{ reason: 'blacklisted', uins: Uint32Array.of(50) }], true),
    );
    units = [{ unitNo: 0, start: 0, end: 4, checkpoint: 2 } as ExecutionUnit];
  });
  afterEach(async () => {
    await records.close();
    await dir.remove();
  });

  const deps = (withRecords = true): RecipientFateDeps => ({
    store: { listUnits: async () => units },
    lists,
    ...(withRecords ? { deliveryRecords: records } : {}),
    clock: { now: () => NOW },
  });

  it('answers from the record, and not reached past the checkpoint', async () => {
    await records.recordBatch({
      taskId: 9,
      from: 0,
      count: 2,
      online: onlineBitsOf(Uint32Array.of(10, 20), Uint32Array.of(20)),
      executor: 'e1',
      at: NOW - 5,
    });
    expect(await recipientFate(task, 20, deps())).toMatchObject({ fate: 'delivered_online', position: 1, at: NOW - 5 });
    expect(await recipientFate(task, 10, deps())).toMatchObject({
      fate: 'queued_offline',
      then: { outcome: 'waiting' },
    });
    expect(await recipientFate(task, 30, deps())).toMatchObject({ fate: 'not_reached', taskState: 'SENDING' });
    expect(await recipientFate(task, 50, deps())).toMatchObject({ fate: 'removed', link: 'blacklisted' });
    expect(await recipientFate(task, 60, deps())).toMatchObject({ fate: 'not_in_audience' });
  });

  it("answers a recipient the channel rejected as rejected, with the channel's reason, from the same record", async () => {
    const uins = Uint32Array.of(10, 20, 30, 40);
    await records.recordBatch({
      taskId: 9,
      from: 0,
      count: 4,
      online: onlineBitsOf(uins, Uint32Array.of(20, 30, 40)),
      executor: 'e1',
      at: NOW - 5,
      rejected: rejectionsOf(uins, [{ uin: 30, reason: 'bad_device_token' }])!,
    });
    expect(await recipientFate(task, 30, deps())).toEqual({
      uin: 30,
      position: 2,
      fate: 'rejected',
      at: NOW - 5,
      executor: 'e1',
      reason: 'bad_device_token',
    });
    expect(await recipientFate(task, 20, deps())).toMatchObject({ fate: 'delivered_online' });
    expect(await recipientFate(task, 40, deps())).toMatchObject({ fate: 'delivered_online' });
    expect(await recipientFate(task, 10, deps())).toMatchObject({ fate: 'queued_offline' });
  });

  it('says unknown for a position a checkpoint passed without a record (a batch from before the records)', async () => {
    const fate = await recipientFate(task, 10, deps());
    expect(fate).toMatchObject({ fate: 'unknown' });
    expect(fate.fate === 'unknown' && fate.reason).toMatch(/unit 0 confirmed this position without a delivery record/);
  });

  it('says unknown, with why, where the profile keeps no delivery records', async () => {
    expect(await recipientFate(task, 30, deps(false))).toEqual({
      uin: 30,
      position: 2,
      fate: 'unknown',
      reason: NO_RECORDS,
    });
    expect(await recipientFate(task, 50, deps(false))).toMatchObject({ fate: 'removed', link: 'blacklisted' });
  });

  it('refuses a task whose list is not filtered yet, naming the field', async () => {
    const early = { ...task, state: 'PREPROCESSING', filteredListId: null } as Task;
    await expect(recipientFate(early, 10, deps())).rejects.toMatchObject({
      code: 'TASK_NOT_PREPROCESSED',
      details: { field: 'id' },
    });
  });
});
