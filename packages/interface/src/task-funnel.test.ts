import { onlineBitsOf, rejectionsOf, type FunnelStage } from '@herald/core/fate';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { ListRepository } from '@herald/audience';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { NO_RECORDS, type RecipientFateDeps } from './recipient-fate';
import { taskFunnel } from './task-funnel';

const NOW = 1_700_000_000_000;

/** The funnel's assembly from the records (the embedded test checks it against the report end to end). */
describe('taskFunnel', () => {
  let dir: TempDir;
  let records: LevelDeliveryRecordLog;
  const task = {
    id: 9,
    state: 'SENDING',
    filteredListId: 'f_9',
    expiresAt: NOW + 1000,
    report: { total: 12, kept: 8, removed: { duplicate: 1, blacklisted: 3 }, delivered: 1, offline: 3 },
  } as unknown as Task;
  // Unit 0 passed positions [0, 4), which have a record; unit 1 passed [4, 6), which have none.
  const units = [
    { unitNo: 0, start: 0, end: 4, checkpoint: 4 },
    { unitNo: 1, start: 4, end: 8, checkpoint: 6 },
  ] as ExecutionUnit[];

  beforeEach(async () => {
    dir = await makeTempDir('herald-task-funnel-');
    records = await LevelDeliveryRecordLog.open(`${dir.path}/records`);
  });
  afterEach(async () => {
    await records.close();
    await dir.remove();
  });

  const deps = (withRecords = true): RecipientFateDeps => ({
    store: { listUnits: async () => units },
    lists: new ListRepository(dir.path),
    ...(withRecords ? { deliveryRecords: records } : {}),
    clock: { now: () => NOW },
  });
  const byKey = (stages: FunnelStage[]) =>
    Object.fromEntries(stages.map((s) => [[s.stage, s.link ?? s.why].filter(Boolean).join(':'), s.count]));

  it('counts the records, the checkpoints and the login outcomes', async () => {
    await records.recordBatch({
      taskId: 9,
      from: 0,
      count: 4,
      online: onlineBitsOf(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(2)),
      executor: 'e1',
      at: NOW - 5,
    });
    await records.recordLogins([{ taskId: 9, uin: 1, outcome: 'delivered', at: NOW - 1 }]);
    const funnel = await taskFunnel(task, deps());
    expect(funnel).toMatchObject({ taskId: 9, state: 'SENDING', at: NOW });
    expect(byKey(funnel.stages)).toMatchObject({
      audience: 12,
      'removed:duplicate': 1,
      'removed:blacklisted': 3,
      kept: 8,
      delivered_online: 1,
      queued_offline: 3,
      delivered_at_login: 1,
      waiting: 2,
      not_reached: 2,
      unknown: 2,
    });
  });

  it("counts the records' rejected positions apart from the delivered ones, by reason", async () => {
    const uins = Uint32Array.of(1, 2, 3, 4);
    await records.recordBatch({
      taskId: 9,
      from: 0,
      count: 4,
      online: onlineBitsOf(uins, Uint32Array.of(1, 2, 4)),
      executor: 'e1',
      at: NOW - 5,
      rejected: rejectionsOf(uins, [
        { uin: 4, reason: 'unregistered' },
        { uin: 1, reason: 'unregistered' },
      ])!,
    });
    const { stages } = await taskFunnel(task, deps());
    expect(byKey(stages)).toMatchObject({ kept: 8, delivered_online: 1, rejected: 2, queued_offline: 1 });
    expect(stages.find((s) => s.stage === 'rejected')).toMatchObject({ of: 'kept', byReason: { unregistered: 2 } });
  });

  it('says unknown, with why, where the profile keeps no delivery records', async () => {
    const stages = (await taskFunnel(task, deps(false))).stages;
    expect(byKey(stages)).toMatchObject({ kept: 8, delivered_online: 'unknown', unknown: 8 });
    expect(stages.find((s) => s.stage === 'queued_offline')?.reason).toBe(NO_RECORDS);
  });
});
