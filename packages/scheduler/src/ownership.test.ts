import { HashRing } from '@herald/core/ring';
import type { Task } from '@herald/core/task';
import { JobLoop } from './job-loop';
import { createOwnership, type Ownership } from './ownership';
import { newTask, openHarness, ownedTask, type Harness } from './test-harness';

describe('ownership', () => {
  let h: Harness;
  let ring: HashRing;
  let mayAdopt: boolean;
  let entered: number[];
  let pumps: number;
  let owner: Ownership;
  beforeEach(async () => {
    h = await openHarness();
    ring = new HashRing(['scheduler-1']);
    mayAdopt = true;
    entered = [];
    pumps = 0;
    const loop = new JobLoop(h.tasks, h.ctx.metrics, h.ctx.logger);
    owner = createOwnership(h.ctx, {
      ring: () => ring,
      mayAdopt: () => mayAdopt,
      enter: async (task) => void entered.push(task.id),
      pump: async () => void pumps++,
      safely: (taskId, job, what) => loop.safely(taskId, job, what),
    });
  });
  afterEach(() => h.close());

  const created = () => h.store.createTask(newTask(), h.clock.now());
  const stored = async (task: Task) => (await h.store.getTask(task.id))!;
  /** Tasks in the store until at least one falls to each member of `shared`. */
  async function split(shared: HashRing): Promise<{ mine: Task[]; theirs: Task[] }> {
    const all: Task[] = [];
    while (
      !all.some((t) => shared.ownerOf(t.id) === 'scheduler-1') ||
      !all.some((t) => shared.ownerOf(t.id) !== 'scheduler-1')
    )
      all.push(await created());
    return {
      mine: all.filter((t) => shared.ownerOf(t.id) === 'scheduler-1'),
      theirs: all.filter((t) => shared.ownerOf(t.id) !== 'scheduler-1'),
    };
  }

  it('claims a task a message names when the ring gives it this scheduler (epoch + 1) and enters it', async () => {
    const task = await created();
    const owned = await owner.ensureOwned(task.id);
    expect(owned).toMatchObject({ id: task.id, epoch: 1, owner: 'scheduler-1' });
    expect([entered, h.tasks.has(task.id)]).toEqual([[task.id], true]);
    expect(await owner.ensureOwned(task.id)).toBe(owned); // held: no second claim
    expect((await stored(task)).epoch).toBe(1);
  });

  it("leaves another member's task, an unknown one and a finished one alone", async () => {
    ring = new HashRing(['scheduler-1', 'scheduler-2']);
    const { theirs } = await split(ring);
    const finished = await ownedTask(h, ['cancel']);
    h.tasks.forget(finished.id);
    expect(await owner.ensureOwned(theirs[0]!.id)).toBeUndefined();
    ring = new HashRing(['scheduler-1']);
    expect(await owner.ensureOwned(9_999)).toBeUndefined();
    expect(await owner.ensureOwned(finished.id)).toBeUndefined();
    expect((await stored(theirs[0]!)).epoch).toBe(0);
    expect([entered, h.tasks.size]).toEqual([[], 0]);
    expect(h.logs).toContain('warn: message names an unknown task');
  });

  it('claims a task again under a new epoch, which reopens it', async () => {
    const task = await ownedTask(h);
    h.tasks.get(task.id)!.closedEpoch = task.epoch;
    const again = await owner.claimAgain(task);
    expect(again.epoch).toBe(task.epoch + 1);
    expect(h.tasks.get(task.id)).toMatchObject({ task: again, closedEpoch: undefined });
  });

  it('follows the ring: releases what it gives another member, adopts what it gives this one, then pumps', async () => {
    const shared = new HashRing(['scheduler-1', 'scheduler-2']);
    const { mine, theirs } = await split(shared);
    for (const task of theirs) h.tasks.hold(task); // held before the ring changed
    ring = shared;
    const result = await owner.followRing('rebalance');
    expect(result).toEqual({ adopted: mine.length, released: theirs.length });
    expect(entered.sort()).toEqual(mine.map((t) => t.id).sort());
    for (const task of mine) expect(await stored(task)).toMatchObject({ epoch: 1, owner: 'scheduler-1' });
    expect(theirs.some((t) => h.tasks.has(t.id))).toBe(false);
    expect(pumps).toBe(1);
    expect(h.counts.get('herald_scheduler_adopted_tasks_total')).toBe(mine.length);
  });

  it('takes nothing while it may not adopt, and changes nothing on a ring without members', async () => {
    const task = await created();
    mayAdopt = false;
    expect(await owner.followRing('sweep')).toEqual({ adopted: 0, released: 0 });
    mayAdopt = true;
    ring = new HashRing([]);
    expect(await owner.followRing('sweep')).toEqual({ adopted: 0, released: 0 });
    expect([(await stored(task)).epoch, h.tasks.size]).toEqual([0, 0]);
  });

  it('recovers at start every live task the ring gives it, whoever held it', async () => {
    const orphan = await created();
    await h.store.claimTask(orphan.id, 'old-scheduler', h.clock.now());
    const done = await created();
    await h.store.transitionTask(done.id, { epoch: 0 }, 'cancel', {}, h.clock.now());
    await owner.recover();
    expect(await stored(orphan)).toMatchObject({ epoch: 2, owner: 'scheduler-1' });
    expect([entered, pumps]).toEqual([[orphan.id], 1]);
  });
});
