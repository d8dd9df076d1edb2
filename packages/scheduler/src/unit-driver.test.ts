import type { Task } from '@herald/core/task';
import type { PreprocessResult, UnitProgressMessage } from '@herald/transport';
import { openHarness, ownedTask, sentOf, TO_SENDING, type Harness } from './test-harness';
import { createProgressCurve } from './progress-curve';
import { createUnitDriver, REPORT_EVERY_MS, type UnitDriver } from './unit-driver';

describe('unit driver', () => {
  let h: Harness;
  let driver: UnitDriver;
  beforeEach(async () => {
    h = await openHarness({ slots: 4 });
    driver = createUnitDriver(h.ctx, {
      ...createProgressCurve(h.ctx),
      fail: () => Promise.reject(new Error('no fail here')),
    });
  });
  afterEach(() => h.close());

  /** A task admitted here: it holds a slot and waits for its pre-processing. */
  async function admitted(): Promise<Task> {
    const task = await ownedTask(h, ['enqueue', 'admit']);
    h.tasks.takeSlot(h.tasks.hold(task));
    return task;
  }
  const result = (task: Task, unitCount: number, epoch = task.epoch): PreprocessResult => ({
    kind: 'preprocess.result',
    ok: true,
    taskId: task.id,
    epoch,
    filteredListId: `f_${task.id}`,
    total: 10 * unitCount,
    kept: 10 * unitCount,
    removed: {},
    units: Array.from({ length: unitCount }, (_, i) => ({ start: 10 * i, end: 10 * i + 10, executorId: 'e1' })),
  });
  const progress = (task: Task, unitNo: number, from: number, to: number, delivered: number): UnitProgressMessage => ({
    kind: 'unit.progress',
    taskId: task.id,
    epoch: task.epoch,
    unitNo,
    from,
    to,
    delivered,
    offline: to - from - delivered,
    done: to % 10 === 0,
  });
  const stored = async (task: Task) => (await h.store.getTask(task.id))!;

  it('stores the planned units and runs each one from its start', async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 2));
    expect((await stored(task)).state).toBe('SENDING');
    expect(sentOf(h, 'unit.run', task.id).map((m) => [m.unitNo, m.from, m.end, m.filteredListId])).toEqual([
      [0, 0, 10, `f_${task.id}`],
      [1, 10, 20, `f_${task.id}`],
    ]);
    expect(h.tasks.get(task.id)!.units!.map((u) => u.state)).toEqual(['ASSIGNED', 'ASSIGNED']);
  });

  it('ignores a result of an old epoch, and fails the task on a failed pre-processing, freeing its slot', async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 1, task.epoch - 1));
    expect([(await stored(task)).state, h.sent]).toEqual(['PREPROCESSING', []]);
    await driver.onPreprocessed({
      kind: 'preprocess.result',
      ok: false,
      taskId: task.id,
      epoch: task.epoch,
      errorCode: 'LIST_EMPTY',
      message: 'no one left',
    });
    expect((await stored(task)).state).toBe('FAILED');
    expect([h.tasks.has(task.id), h.tasks.active]).toEqual([false, 0]);
  });

  it('checkpoints each batch, finishes each unit at its end and completes the task with the totals, freeing its slot', async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 2));
    await driver.onProgress(progress(task, 0, 0, 10, 4));
    expect(h.tasks.get(task.id)!.units!.map((u) => u.state)).toEqual(['DONE', 'ASSIGNED']);
    await driver.onProgress(progress(task, 1, 10, 16, 6));
    expect(h.tasks.get(task.id)!.units!.map((u) => [u.state, u.checkpoint])).toEqual([
      ['DONE', 10],
      ['RUNNING', 16],
    ]);
    await driver.onProgress(progress(task, 1, 16, 20, 0));
    const done = await stored(task);
    expect(done.state).toBe('COMPLETED');
    expect(done.report).toMatchObject({ delivered: 10, offline: 10, unitsDone: 2 });
    expect([h.tasks.has(task.id), h.tasks.active]).toEqual([false, 0]);
    expect(h.logs).toContain('info: task completed');
  });

  it(`writes a sending task's totals to its row at most every ${REPORT_EVERY_MS} ms`, async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 1));
    const delivered = async () => (await stored(task)).report.delivered;
    await driver.onProgress(progress(task, 0, 0, 2, 2));
    expect(await delivered()).toBe(2);
    h.clock.advance(REPORT_EVERY_MS - 1);
    await driver.onProgress(progress(task, 0, 2, 4, 2));
    expect(await delivered()).toBe(2); // too soon
    h.clock.advance(1);
    await driver.onProgress(progress(task, 0, 4, 6, 2));
    expect(await delivered()).toBe(6);
  });

  it('keeps the checkpoint of a batch that arrives after its task stopped, without running or finishing anything', async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 1));
    h.tasks.release(task.id); // paused meanwhile: its units no longer run here
    await driver.onProgress(progress(task, 0, 0, 10, 10));
    const [unit] = await h.store.listUnits(task.id);
    expect([unit!.state, unit!.checkpoint]).toEqual(['ASSIGNED', 10]);
    expect((await stored(task)).state).toBe('SENDING');
  });

  it("restarts a recovered task's units from their checkpoints, finishing without a run one already at its end", async () => {
    const task = await ownedTask(h, TO_SENDING, {}, 2);
    const fence = { epoch: task.epoch };
    await h.store.transitionUnit(task.id, 0, fence, 'assign', h.clock.now(), 'e1');
    await h.store.checkpointUnit(task.id, 0, fence, { from: 0, to: 4, delivered: 4, offline: 0 }, h.clock.now());
    await h.store.transitionUnit(task.id, 1, fence, 'assign', h.clock.now(), 'e1');
    await h.store.checkpointUnit(task.id, 1, fence, { from: 10, to: 20, delivered: 10, offline: 0 }, h.clock.now());
    await driver.runUnits(task, await h.store.listUnits(task.id));
    expect(sentOf(h, 'unit.run', task.id).map((m) => [m.unitNo, m.from])).toEqual([[0, 4]]);
    expect((await h.store.listUnits(task.id)).map((u) => u.state)).toEqual(['ASSIGNED', 'DONE']);
  });

  it("asks for pre-processing with the task's speed, 0 when it has none", async () => {
    const paced = await ownedTask(h, [], { speed: 2_500 });
    const plain = await ownedTask(h);
    await driver.requestPreprocess(paced);
    await driver.requestPreprocess(plain);
    expect(h.sent.map((m) => m.kind === 'preprocess.request' && [m.taskId, m.speed, m.epoch])).toEqual([
      [paced.id, 2_500, 1],
      [plain.id, 0, 1],
    ]);
  });
  it('moves a unit off an executor that stopped reporting, as proposed, and runs it there from its checkpoint; a stale proposal changes nothing', async () => {
    const task = await admitted();
    await driver.onPreprocessed(result(task, 2));
    const sending = h.tasks.get(task.id)!.task;
    await driver.onProgress(progress(sending, 0, 0, 4, 4));
    h.sent.length = 0;
    const move = {
      kind: 'unit.replan' as const,
      taskId: task.id,
      epoch: sending.epoch,
      unitNo: 0,
      from: 'e1',
      to: 'e2',
    };

    await driver.onReplan({ ...move, epoch: sending.epoch - 1 }); // an older owner's run
    await driver.onReplan({ ...move, from: 'e3' }); // the unit is not on e3
    expect(h.sent).toEqual([]);

    await driver.onReplan(move);
    const [unit0, unit1] = await h.store.listUnits(task.id);
    expect([unit0!.state, unit0!.executorId, unit0!.checkpoint, unit1!.executorId]).toEqual([
      'ASSIGNED',
      'e2',
      4,
      'e1',
    ]);
    expect(sentOf(h, 'unit.run', task.id).map((m) => [m.unitNo, m.executorId, m.from])).toEqual([[0, 'e2', 4]]);
    expect(h.counts.get('herald_scheduler_moved_units_total')).toBe(1);

    await driver.onReplan(move); // repeated: the unit is on e2 now
    expect(sentOf(h, 'unit.run', task.id)).toHaveLength(1);
    await driver.onProgress(progress(sending, 0, 4, 10, 6));
    expect((await h.store.listUnits(task.id))[0]!.state).toBe('DONE');
  });

  it('holds a unit an executor met quiet hours in, durably, and runs it from its checkpoint at their end', async () => {
    const task = await admitted();
    const now = h.clock.now();
    const groups = [
      { offsetMinutes: 120, releaseAt: now, start: 0, end: 10, skipped: false },
      { offsetMinutes: -240, releaseAt: now, start: 10, end: 20, skipped: false },
    ];
    await driver.onPreprocessed({ ...(result(task, 2) as Extract<PreprocessResult, { ok: true }>), groups });
    const sending = await stored(task);
    await driver.onProgress(progress(sending, 0, 0, 5, 5));
    const until = now + 3_600_000;
    const hold = { ...progress(sending, 0, 5, 5, 0), done: false, quietUntil: until };
    await driver.onProgress(hold);
    expect(h.tasks.get(task.id)!.units!.map((u) => [u.state, u.checkpoint])).toEqual([
      ['REASSIGNED', 5],
      ['ASSIGNED', 10],
    ]);
    const report = (await stored(task)).report;
    expect(report.localGroups!.map((g) => g.heldUntil)).toEqual([until, undefined]);
    // Another batch of its old stream, or a hold already over, changes nothing.
    await driver.onProgress({ ...hold, from: 8, to: 8 });
    await driver.onProgress({ ...hold, unitNo: 1, from: 10, to: 10, quietUntil: now });
    expect(h.tasks.get(task.id)!.units!.map((u) => u.state)).toEqual(['REASSIGNED', 'ASSIGNED']);
    const runs = () => sentOf(h, 'unit.run', task.id).filter((m) => m.unitNo === 0);
    await driver.releaseDue(task.id);
    expect(runs()).toHaveLength(1);
    h.clock.advance(3_600_000);
    await driver.releaseDue(task.id);
    expect(runs().map((m) => [m.from, m.end])).toEqual([
      [0, 10],
      [5, 10],
    ]);
  });
});
