import type { Task } from '@herald/core/task';
import type { UnitProgressMessage } from '@herald/transport';
import { createHalts } from './halts';
import { createProgressCurve } from './progress-curve';
import { createStallRescue, type StallRescue } from './stall-rescue';
import { createUnitDriver } from './unit-driver';
import { openHarness, ownedTask, TO_SENDING, type Harness } from './test-harness';

describe('stall rescue', () => {
  const STALL_MS = 1_000;
  let h: Harness;
  let rescue: StallRescue;
  /** What was run again, as "preprocess <task>" or "run <task>/<unit>@<checkpoint>". */
  let again: string[];
  beforeEach(async () => {
    h = await openHarness({ unitStallMs: STALL_MS, slots: 4 });
    again = [];
    rescue = createStallRescue(h.ctx, {
      requestPreprocess: async (task) => void again.push(`preprocess ${task.id}`),
      sendRun: async (task, unit) => void again.push(`run ${task.id}/${unit.unitNo}@${unit.checkpoint}`),
    });
  });
  afterEach(() => h.close());

  /** A SENDING task whose units were sent (ASSIGNED), one to each executor named, and run here. */
  async function streaming(executors = ['e1', 'e2']): Promise<Task> {
    const task = await ownedTask(h, TO_SENDING, {}, executors.length);
    const units = [];
    for (const [unitNo, executor] of executors.entries())
      units.push(
        await h.store.transitionUnit(task.id, unitNo, { epoch: task.epoch }, 'assign', h.clock.now(), executor),
      );
    const entry = h.tasks.hold(task);
    h.tasks.takeSlot(entry);
    entry.units = units;
    return task;
  }
  const tickAt = async (ms: number) => {
    h.clock.advance(ms);
    await rescue.rerunStalled(h.clock.now());
  };

  it('runs a unit again from its checkpoint once it has not moved for unitStallMs, and gives the re-run a whole period', async () => {
    const task = await streaming();
    await tickAt(0); // first sight
    h.tasks.get(task.id)!.units![1] = { ...h.tasks.get(task.id)!.units![1]!, checkpoint: 14 }; // unit 1 moves
    await tickAt(STALL_MS);
    expect(again).toEqual([`run ${task.id}/0@0`]);
    await tickAt(STALL_MS - 1);
    expect(again).toHaveLength(1);
    await tickAt(1);
    expect(again).toEqual([`run ${task.id}/0@0`, `run ${task.id}/0@0`, `run ${task.id}/1@14`]);
    expect(h.counts.get('herald_scheduler_stalled_units_total')).toBe(3);
  });

  it('leaves a unit waiting its turn while its executor moves the task’s other units, for up to 10 periods', async () => {
    // Units 0 and 1 on e1, unit 2 on e2: e1 keeps moving unit 1 (a throttled channel shared by both units).
    const task = await streaming(['e1', 'e1', 'e2']);
    const units = () => h.tasks.get(task.id)!.units!;
    await tickAt(0);
    const start = units()[1]!.checkpoint;
    for (let period = 1; period <= 9; period++) {
      units()[1] = { ...units()[1]!, checkpoint: start + period };
      await tickAt(STALL_MS);
      // e2 moved nothing: its unit is re-run each period; unit 0 waits behind unit 1.
      expect(again.filter((run) => !run.startsWith(`run ${task.id}/2@`))).toEqual([]);
    }
    expect(again.filter((run) => run.startsWith(`run ${task.id}/2@`))).toHaveLength(9);
    units()[1] = { ...units()[1]!, checkpoint: start + 10 };
    await tickAt(STALL_MS);
    // Ten periods without a move: a stream lost beside live ones is run again all the same.
    expect(again).toContain(`run ${task.id}/0@0`);
    expect(again.filter((run) => run.startsWith(`run ${task.id}/1@`))).toEqual([]);
  });

  it('runs a unit reported past its checkpoint again after one period, while its executor moves others', async () => {
    const task = await streaming(['e1', 'e1']);
    const units = () => h.tasks.get(task.id)!.units!;
    await tickAt(0);
    // e1 reported a later batch of unit 0: the one at its checkpoint was lost (a restarted executor's prefetch).
    h.tasks.get(task.id)!.unitStalls.noteGap(task.id, 0);
    units()[1] = { ...units()[1]!, checkpoint: units()[1]!.checkpoint + 1 };
    await tickAt(STALL_MS);
    expect(again).toEqual([`run ${task.id}/0@0`]);
    // Once it moves, the gap is history: back to waiting its turn behind unit 1.
    units()[0] = { ...units()[0]!, checkpoint: 1 };
    units()[1] = { ...units()[1]!, checkpoint: units()[1]!.checkpoint + 1 };
    await tickAt(STALL_MS);
    units()[1] = { ...units()[1]!, checkpoint: units()[1]!.checkpoint + 1 };
    await tickAt(STALL_MS);
    expect(again).toEqual([`run ${task.id}/0@0`]);
  });

  it('runs a unit of an executor that stopped moving anything again after one period', async () => {
    const task = await streaming(['e1', 'e1']);
    const units = () => h.tasks.get(task.id)!.units!;
    await tickAt(0);
    const moved = units()[1]!.checkpoint + 1;
    units()[1] = { ...units()[1]!, checkpoint: moved }; // e1's last move
    await tickAt(STALL_MS / 2);
    await tickAt(STALL_MS / 2);
    expect(again).toEqual([]); // unit 0 still: e1 moved half a period ago
    await tickAt(STALL_MS / 2);
    // A period since e1's move (seen at the second look): both its units are run again.
    expect(again).toEqual([`run ${task.id}/0@0`, `run ${task.id}/1@${moved}`]);
  });

  it("leaves a held executor's units alone while it repeats the channel's hold, and runs them again once it falls silent", async () => {
    const halts = createHalts(h.ctx, { ensureOwned: async () => undefined, resume: async () => undefined });
    const driver = createUnitDriver(h.ctx, {
      ...createProgressCurve(h.ctx),
      fail: (task, error) => halts.halt(task, 'fail', error),
    });
    // Both units on e1, whose channel holds unit 0's batch in hand (an open breaker): nothing moves for 5 periods.
    const task = await streaming(['e1', 'e1']);
    const hold: UnitProgressMessage = {
      kind: 'unit.progress',
      taskId: task.id,
      epoch: task.epoch,
      unitNo: 0,
      from: 0,
      to: 0,
      delivered: 0,
      offline: 0,
      done: false,
      channel: { state: 'unavailable', reason: 'HTTP 503' },
    };
    await tickAt(0);
    for (let third = 1; third <= 15; third++) {
      await driver.onProgress(hold); // the executor's repeat, a third of a period apart
      await tickAt(STALL_MS / 3);
    }
    expect(again).toEqual([]);
    expect((await h.store.getTask(task.id))!.report.channel).toEqual({ state: 'unavailable', reason: 'HTTP 503' });
    // The repeats stop (the executor died holding it): a period after the last one, both units run again.
    await tickAt(STALL_MS - STALL_MS / 3 - 1);
    expect(again).toEqual([]);
    await tickAt(1);
    const second = h.tasks.get(task.id)!.units![1]!.checkpoint;
    expect(again).toEqual([`run ${task.id}/0@0`, `run ${task.id}/1@${second}`]);
  });

  it('asks for pre-processing again after 4 x unitStallMs without a result', async () => {
    const task = await ownedTask(h, ['enqueue', 'admit']);
    h.tasks.takeSlot(h.tasks.hold(task));
    await tickAt(0);
    await tickAt(4 * STALL_MS - 1);
    expect(again).toEqual([]);
    await tickAt(1);
    expect(again).toEqual([`preprocess ${task.id}`]);
    expect(h.counts.get('herald_scheduler_preprocess_retries_total')).toBe(1);
  });

  it('drops a stalled task another scheduler claimed meanwhile instead of running anything again', async () => {
    const sending = await streaming();
    const preprocessing = await ownedTask(h, ['enqueue', 'admit']);
    for (const task of [sending, preprocessing]) await h.store.claimTask(task.id, 'scheduler-2', h.clock.now());
    await tickAt(0);
    await tickAt(4 * STALL_MS);
    expect(again).toEqual([]);
    expect([h.tasks.size, h.tasks.active]).toEqual([0, 0]);
    expect(h.logs.filter((l) => l === 'warn: lost ownership of a task; dropping it')).toHaveLength(2);
  });

  it('leaves alone a task whose units do not run here', async () => {
    const task = await streaming();
    h.tasks.release(task.id);
    await tickAt(0);
    await tickAt(4 * STALL_MS);
    expect(again).toEqual([]);
  });
});
