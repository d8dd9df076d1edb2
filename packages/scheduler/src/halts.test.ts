import type { Task } from '@herald/core/task';
import { createHalts, type Halts } from './halts';
import { openHarness, ownedTask, sentOf, TO_SENDING, type Harness } from './test-harness';

describe('halts', () => {
  let h: Harness;
  let halt: Halts;
  let resumed: number[];
  beforeEach(async () => {
    h = await openHarness({ slots: 4 });
    resumed = [];
    halt = createHalts(h.ctx, {
      ensureOwned: async (taskId) => h.tasks.task(taskId),
      resume: async (task) => void resumed.push(task.id),
    });
  });
  afterEach(() => h.close());

  /** A SENDING task holding a slot, its one unit streaming with 4 recipients confirmed. */
  async function streaming(): Promise<Task> {
    const task = await ownedTask(h, TO_SENDING);
    const fence = { epoch: task.epoch };
    await h.store.transitionUnit(task.id, 0, fence, 'assign', h.clock.now(), 'e1');
    await h.store.transitionUnit(task.id, 0, fence, 'start', h.clock.now());
    const unit = await h.store.checkpointUnit(
      task.id,
      0,
      fence,
      { from: 0, to: 4, delivered: 4, offline: 0 },
      h.clock.now(),
    );
    const entry = h.tasks.hold(task);
    h.tasks.takeSlot(entry);
    entry.units = [unit];
    return task;
  }
  const unitState = async (task: Task) => (await h.store.listUnits(task.id))[0]!.state;

  it('pauses a sending task: streams stopped first with a halt that closes its epoch, then its state, slot and units', async () => {
    const task = await streaming();
    await halt.onCommand({ kind: 'task.command', taskId: task.id, command: 'pause' });
    expect(sentOf(h, 'task.halt', task.id)).toEqual([
      { kind: 'task.halt', taskId: task.id, epoch: 1, closesEpoch: true },
    ]);
    const stored = (await h.store.getTask(task.id))!;
    expect([stored.state, stored.report.delivered]).toEqual(['PAUSED', 4]);
    expect(await unitState(task)).toBe('CHECKPOINTED');
    const entry = h.tasks.get(task.id)!;
    expect([entry.closedEpoch, entry.active, entry.units, h.tasks.active]).toEqual([1, false, undefined, 0]);
  });

  it('pauses a queued task with a halt that keeps its epoch, and takes it out of the queue', async () => {
    const task = await ownedTask(h, ['enqueue']);
    h.tasks.enqueue(task.id, 1);
    await halt.onCommand({ kind: 'task.command', taskId: task.id, command: 'pause' });
    expect(sentOf(h, 'task.halt', task.id)).toEqual([{ kind: 'task.halt', taskId: task.id, epoch: 1 }]);
    expect([h.tasks.task(task.id)!.state, h.tasks.queued, h.tasks.get(task.id)!.closedEpoch]).toEqual([
      'PAUSED',
      0,
      undefined,
    ]);
  });

  it('cancels a task: its units cancelled, the task forgotten', async () => {
    const task = await streaming();
    await halt.onCommand({ kind: 'task.command', taskId: task.id, command: 'cancel' });
    expect((await h.store.getTask(task.id))!.state).toBe('CANCELLED');
    expect(await unitState(task)).toBe('CANCELLED');
    expect([h.tasks.has(task.id), h.tasks.active]).toEqual([false, 0]);
  });

  it('hands a resume to admission, and refuses a command the state does not allow', async () => {
    const paused = await ownedTask(h, ['enqueue', 'pause']);
    const queued = await ownedTask(h, ['enqueue']);
    await halt.onCommand({ kind: 'task.command', taskId: paused.id, command: 'resume' });
    await halt.onCommand({ kind: 'task.command', taskId: queued.id, command: 'resume' });
    expect(resumed).toEqual([paused.id]);
    expect(h.logs).toContain('warn: command not allowed in the task state');
    expect(h.sent).toEqual([]);
  });

  it('expires a task once its expiry has passed, and not before', async () => {
    const task = await ownedTask(h, ['schedule'], { sendAt: h.clock.now() + 1_000, expiresAt: h.clock.now() + 5_000 });
    h.tasks.hold(task).scheduled = true;
    expect(await halt.expireIfDue(task, h.clock.now() + 4_999)).toBe(false);
    expect(await halt.expireIfDue(task, h.clock.now() + 5_000)).toBe(true);
    expect((await h.store.getTask(task.id))!.state).toBe('EXPIRED');
    expect([h.tasks.has(task.id), h.tasks.scheduled]).toEqual([false, 0]);
  });

  it('stops a preempted task in two parts: state and slot at once, its units when the rest is run', async () => {
    const task = await streaming();
    const rest = await halt.stopSending(task, 'preempt');
    expect([h.tasks.task(task.id)!.state, h.tasks.active]).toEqual(['PREEMPTED', 0]);
    expect(await unitState(task)).toBe('RUNNING');
    await rest();
    expect(await unitState(task)).toBe('CHECKPOINTED');
  });
});
