import type { Task } from '@herald/core/task';
import type { UnitProgressMessage } from '@herald/transport';
import { describeWaiting } from '@herald/core/progress';
import { CURVE_WRITE_EVERY_MS, createProgressCurve, WAITING_PASS_EVERY_MS, type ProgressCurve } from './progress-curve';
import { openHarness, ownedTask, TO_SENDING, type Harness } from './test-harness';
import { createUnitDriver, type UnitDriver } from './unit-driver';

describe('progress curve', () => {
  let h: Harness;
  let curve: ProgressCurve;
  let driver: UnitDriver;

  async function open(slots: number): Promise<void> {
    h = await openHarness({ slots });
    curve = createProgressCurve(h.ctx);
    driver = createUnitDriver(h.ctx, {
      sample: (id, final) => curve.sample(id, final),
      fail: () => Promise.reject(new Error('no fail here')),
    });
  }
  afterEach(() => h.close());

  const progress = (task: Task, from: number, to: number): UnitProgressMessage => ({
    kind: 'unit.progress',
    taskId: task.id,
    epoch: task.epoch,
    unitNo: 0,
    from,
    to,
    delivered: to - from,
    offline: 0,
    done: to === 10,
  });

  /** A SENDING task holding a slot, its one unit of 10 running here. */
  async function sending(): Promise<Task> {
    const task = await ownedTask(h, TO_SENDING);
    h.tasks.takeSlot(h.tasks.hold(task));
    await driver.runUnits(task, await h.store.listUnits(task.id));
    return h.tasks.task(task.id)!;
  }

  it('samples every confirmed batch, writes the curve every few seconds and at completion', async () => {
    await open(1);
    const task = await sending();
    const stored = async () => (await h.store.getProgress(task.id))?.history.samples;
    expect(await stored()).toEqual([{ at: h.clock.now(), confirmed: 0 }]); // the first sample, written at once
    const start = h.clock.now();
    h.clock.advance(1_000);
    await driver.onProgress(progress(task, 0, 4));
    expect(await stored()).toHaveLength(1); // not yet due
    h.clock.advance(CURVE_WRITE_EVERY_MS);
    await driver.onProgress(progress(task, 4, 6));
    expect(await stored()).toEqual([
      { at: start, confirmed: 0 },
      { at: start + 1_000, confirmed: 4 },
      { at: start + 1_000 + CURVE_WRITE_EVERY_MS, confirmed: 6 },
    ]);
    h.clock.advance(10);
    await driver.onProgress(progress(task, 6, 10));
    expect((await h.store.getTask(task.id))!.state).toBe('COMPLETED');
    expect((await stored())!.at(-1)).toEqual({ at: start + 1_010 + CURVE_WRITE_EVERY_MS, confirmed: 10 });
  });

  it('goes on from the curve a previous owner wrote', async () => {
    await open(1);
    const task = await ownedTask(h, TO_SENDING);
    const earlier = { at: h.clock.now() - 60_000, confirmed: 0 };
    await h.store.putProgress(
      task.id,
      { epoch: task.epoch },
      {
        history: { intervalMs: 1000, samples: [earlier] },
        waiting: null,
        updatedAt: earlier.at,
      },
    );
    h.tasks.takeSlot(h.tasks.hold(task));
    await driver.runUnits(task, await h.store.listUnits(task.id));
    const samples = (await h.store.getProgress(task.id))!.history.samples;
    expect(samples[0]).toEqual(earlier);
    expect(samples).toHaveLength(2);
  });

  it('says why a queued task waits: every slot taken, by which tasks, how many ahead; and clears it once it runs', async () => {
    await open(2);
    const holders = [await sending(), await sending()];
    const first = await ownedTask(h, ['enqueue'], { priority: 'realtime' });
    const second = await ownedTask(h, ['enqueue']);
    h.tasks.enqueue(first.id, 2);
    h.tasks.enqueue(second.id, 1);
    await curve.noteWaiting();
    const waiting = (await h.store.getProgress(second.id))!.waiting!;
    expect(describeWaiting(waiting)).toBe(
      `waiting for a sender slot: 2 of 2 in use by tasks ${holders[0]!.id}, ${holders[1]!.id}; 1 ahead in the queue`,
    );
    expect((await h.store.getProgress(first.id))!.waiting).toMatchObject({ ahead: 0, inUse: 2 });

    // A slot frees and `first` takes it: its first sample clears the reason.
    h.tasks.release(holders[0]!.id);
    h.tasks.popReady();
    h.tasks.takeSlot(h.tasks.hold(first));
    const running = await h.store.transitionTask(first.id, { epoch: first.epoch }, 'admit', {}, h.clock.now());
    h.tasks.hold(running);
    h.tasks.get(first.id)!.units = [];
    await curve.sample(first.id, false);
    expect((await h.store.getProgress(first.id))!.waiting).toBeNull();
  });

  it('writes no reason while a slot is free, and looks at most once a second', async () => {
    await open(2);
    await sending();
    const queued = await ownedTask(h, ['enqueue']);
    h.tasks.enqueue(queued.id, 1);
    await curve.noteWaiting();
    expect(await h.store.getProgress(queued.id)).toBeUndefined();
    await sending();
    await curve.noteWaiting(); // too soon after the last pass
    expect(await h.store.getProgress(queued.id)).toBeUndefined();
    h.clock.advance(WAITING_PASS_EVERY_MS);
    await curve.noteWaiting();
    expect((await h.store.getProgress(queued.id))!.waiting).toMatchObject({ inUse: 2, slots: 2 });
  });
});
