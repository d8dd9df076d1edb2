import type { Task } from '@herald/core/task';
import type { PreprocessResult, UnitProgressMessage } from '@herald/transport';
import { openHarness, ownedTask, sentOf, type Harness } from './test-harness';
import { createHalts } from './halts';
import { createProgressCurve } from './progress-curve';
import { createUnitDriver, type UnitDriver } from './unit-driver';
import { MAX_DEAD_LETTER_REASONS } from './channel-report';

describe("the channel's part of a task's report: dead letters, hold, refusal", () => {
  let h: Harness;
  let driver: UnitDriver;
  beforeEach(async () => {
    h = await openHarness({ slots: 4 });
    const halts = createHalts(h.ctx, { ensureOwned: async () => undefined, resume: async () => undefined });
    driver = createUnitDriver(h.ctx, {
      ...createProgressCurve(h.ctx),
      fail: (task, error) => halts.halt(task, 'fail', error),
    });
  });
  afterEach(() => h.close());

  async function sending(units = 1): Promise<Task> {
    const task = await ownedTask(h, ['enqueue', 'admit']);
    h.tasks.takeSlot(h.tasks.hold(task));
    const result: PreprocessResult = {
      kind: 'preprocess.result',
      ok: true,
      taskId: task.id,
      epoch: task.epoch,
      filteredListId: `f_${task.id}`,
      total: 10 * units,
      kept: 10 * units,
      removed: {},
      units: Array.from({ length: units }, (_, i) => ({ start: 10 * i, end: 10 * i + 10, executorId: 'e1' })),
    };
    await driver.onPreprocessed(result);
    return (await h.store.getTask(task.id))!;
  }
  const progress = (
    task: Task,
    from: number,
    to: number,
    extra: Partial<UnitProgressMessage> = {},
  ): UnitProgressMessage => ({
    kind: 'unit.progress',
    taskId: task.id,
    epoch: task.epoch,
    unitNo: 0,
    from,
    to,
    delivered: to - from,
    offline: 0,
    done: to === 10,
    ...extra,
  });
  const stored = async (task: Task) => (await h.store.getTask(task.id))!;

  it('counts dead letters by reason once per batch, a replayed batch adding nothing, into the completed report', async () => {
    const task = await sending();
    await driver.onProgress(progress(task, 0, 4, { delivered: 2, deadLetters: { unregistered: 1, bad_token: 1 } }));
    await driver.onProgress(progress(task, 0, 4, { delivered: 2, deadLetters: { unregistered: 1, bad_token: 1 } }));
    await driver.onProgress(progress(task, 4, 10, { delivered: 5, deadLetters: { unregistered: 1 } }));
    const done = await stored(task);
    expect([done.state, done.report.delivered, done.report.deadLetters]).toEqual([
      'COMPLETED',
      7,
      { unregistered: 2, bad_token: 1 },
    ]);
  });

  it("goes on from the stored report's counts and folds reasons past the limit into other", async () => {
    const task = await sending();
    const many = Object.fromEntries(Array.from({ length: MAX_DEAD_LETTER_REASONS + 3 }, (_, i) => [`r${i}`, 1]));
    h.tasks.get(task.id)!.task = { ...task, report: { ...task.report, deadLetters: { r0: 5 } } };
    await driver.onProgress(progress(task, 0, 10, { delivered: 0, deadLetters: many }));
    const counts = (await stored(task)).report.deadLetters!;
    expect(Object.keys(counts)).toHaveLength(MAX_DEAD_LETTER_REASONS);
    expect([counts['r0'], counts['other']]).toEqual([6, 4]);
  });

  it('shows the channel holding the task at once, and sending again with the next batch', async () => {
    const task = await sending();
    await driver.onProgress(
      progress(task, 0, 0, { channel: { state: 'throttled', reason: 'HTTP 429, Retry-After 2 s' } }),
    );
    expect((await stored(task)).report.channel).toEqual({ state: 'throttled', reason: 'HTTP 429, Retry-After 2 s' });
    expect(h.tasks.get(task.id)!.units![0]!.checkpoint).toBe(0); // a hold covers no recipients
    await driver.onProgress(
      progress(task, 0, 0, { epoch: task.epoch - 1, channel: { state: 'unavailable', reason: 'x' } }),
    );
    expect((await stored(task)).report.channel?.state).toBe('throttled'); // another epoch's hold changes nothing
    await driver.onProgress(progress(task, 0, 4));
    expect([(await stored(task)).state, (await stored(task)).report.channel]).toEqual(['SENDING', null]);
    await driver.onProgress(progress(task, 4, 10));
    expect((await stored(task)).state).toBe('COMPLETED');
  });

  it('fails a task whose batch the channel refused whole, with one clear error, and halts its streams', async () => {
    const task = await sending(2);
    await driver.onProgress(
      progress(task, 0, 4, { delivered: 0, deadLetters: { batch_refused: 4 }, refused: 'HTTP 400: payload refused' }),
    );
    const failed = await stored(task);
    expect([failed.state, failed.error, failed.report.deadLetters]).toEqual([
      'FAILED',
      {
        code: 'DELIVERY_REJECTED',
        message: 'the delivery channel refused a batch whole: HTTP 400: payload refused',
      },
      { batch_refused: 4 },
    ]);
    expect(sentOf(h, 'task.halt', task.id)).toHaveLength(1);
    expect((await h.store.listUnits(task.id)).map((u) => u.state)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(h.tasks.has(task.id)).toBe(false);
    expect(h.logs).toContain('error: channel refused a batch whole: the task fails');
  });
});
