import { ErrorCodes, FencedError, HeraldError } from '@herald/core';
import type { ExecutionUnit, Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { createAdmission, type Admission, type AdmissionNeeds } from './admission';
import type { SchedulerContext } from './context';
import { openHarness, ownedTask, TO_SENDING, type Harness } from './test-harness';

describe('admission', () => {
  let h: Harness;
  /** The calls admission made to the other parts, in order. */
  let calls: string[];
  let needs: AdmissionNeeds;

  async function open(slots = 1): Promise<void> {
    h = await openHarness({ slots });
    calls = [];
    needs = {
      requestPreprocess: async (task) => void calls.push(`preprocess ${task.id}`),
      runUnits: async (task, units) => void calls.push(`run ${task.id}@${task.epoch} x${units.length}`),
      // As halts does it: PREEMPTED with its slot free; the units are stopped by what it returns.
      stopSending: async (task, event) => {
        await h.ctx.transition(task, event);
        h.tasks.release(task.id);
        calls.push(`halt ${task.id}`);
        return async () => void calls.push(`units stopped ${task.id}`);
      },
      claimAgain: async (task) => {
        calls.push(`claim ${task.id}`);
        const claimed = await h.store.claimTask(task.id, 'scheduler-1', h.clock.now());
        h.tasks.hold(claimed).closedEpoch = undefined;
        return claimed;
      },
      // The progress curve's part, tested in progress-curve.test.ts.
      noteWaiting: async () => undefined,
    };
  }
  afterEach(() => h.close());

  const state = (task: Task) => h.tasks.task(task.id)?.state;
  /** A task that holds a slot and is SENDING, as after its admission. */
  async function sending(overrides: Parameters<typeof ownedTask>[2] = {}): Promise<Task> {
    const task = await ownedTask(h, TO_SENDING, overrides);
    h.tasks.takeSlot(h.tasks.hold(task));
    return task;
  }

  describe('entering a claimed task', () => {
    beforeEach(() => open());

    it('schedules a task whose send time is ahead and queues one that is due', async () => {
      const a = createAdmission(h.ctx, needs);
      const later = await ownedTask(h, [], { sendAt: h.clock.now() + 60_000 });
      const now = await ownedTask(h);
      await a.enter(later);
      await a.enter(now);
      expect([state(later), h.tasks.get(later.id)!.scheduled]).toEqual(['SCHEDULED', true]);
      expect([state(now), h.tasks.peekReady()]).toEqual(['QUEUED', now.id]);
      h.clock.advance(60_000);
      await a.wakeIfDue(h.tasks.task(later.id)!, h.clock.now());
      expect([state(later), h.tasks.scheduled, h.tasks.queued]).toEqual(['QUEUED', 0, 2]);
    });

    it('queues a recovered in-flight task again (requeue), and leaves a paused one waiting for resume', async () => {
      const a = createAdmission(h.ctx, needs);
      const inFlight = await ownedTask(h, TO_SENDING);
      const paused = await ownedTask(h, ['enqueue', 'pause']);
      await a.enter(inFlight);
      await a.enter(paused);
      expect(state(inFlight)).toBe('QUEUED');
      expect(h.tasks.queued).toBe(1);
      await a.resume(paused);
      expect([state(paused), h.tasks.queued]).toEqual(['QUEUED', 2]);
    });
  });

  describe('pump', () => {
    it('admits by score while slots are free: a real-time task before an earlier normal one', async () => {
      await open(1);
      const a = createAdmission(h.ctx, needs);
      const normal = await ownedTask(h, ['enqueue']);
      const urgent = await ownedTask(h, ['enqueue'], { priority: 'realtime' });
      for (const task of [normal, urgent]) a.enqueue(task);
      await a.pump();
      expect(calls).toEqual([`preprocess ${urgent.id}`]);
      expect([state(urgent), state(normal), h.tasks.active, h.tasks.queued]).toEqual(['PREPROCESSING', 'QUEUED', 1, 1]);
    });

    it('resumes a task that has units from their checkpoints, under a new epoch when a halt closed its own', async () => {
      await open(2);
      const a = createAdmission(h.ctx, needs);
      const kept = await ownedTask(h, [...TO_SENDING, 'preempt']);
      const closed = await ownedTask(h, [...TO_SENDING, 'preempt']);
      h.tasks.get(closed.id)!.closedEpoch = closed.epoch;
      for (const task of [kept, closed]) a.enqueue(task);
      await a.pump();
      expect(calls.sort()).toEqual([`claim ${closed.id}`, `run ${closed.id}@2 x1`, `run ${kept.id}@1 x1`].sort());
      expect([state(kept), state(closed)]).toEqual(['SENDING', 'SENDING']);
    });

    it('preempts the lowest-scored sending normal task for a real-time one, stopping its units only after the admission', async () => {
      await open(1);
      const a = createAdmission(h.ctx, needs);
      const victim = await sending();
      const urgent = await ownedTask(h, ['enqueue'], { priority: 'realtime' });
      a.enqueue(urgent);
      await a.pump();
      expect(calls).toEqual([`halt ${victim.id}`, `preprocess ${urgent.id}`, `units stopped ${victim.id}`]);
      expect([state(victim), state(urgent), h.tasks.peekReady()]).toEqual(['PREEMPTED', 'PREPROCESSING', victim.id]);
      expect(h.counts.get('herald_scheduler_preemptions_total')).toBe(1);
    });

    it('of two equal candidates, preempts the one that took its slot first', async () => {
      await open(2);
      const a = createAdmission(h.ctx, needs);
      const [held, first] = [await ownedTask(h, TO_SENDING), await ownedTask(h, TO_SENDING)]; // equal scores: same fields, same clock
      for (const task of [first, held]) h.tasks.takeSlot(h.tasks.get(task.id)!);
      const urgent = await ownedTask(h, ['enqueue'], { priority: 'realtime' });
      a.enqueue(urgent);
      await a.pump();
      expect([state(first), state(held)]).toEqual(['PREEMPTED', 'SENDING']);
    });

    it('never preempts for a normal task, nor a real-time task for anything', async () => {
      await open(1);
      const a = createAdmission(h.ctx, needs);
      await sending({ priority: 'realtime' });
      const normal = await ownedTask(h, ['enqueue'], { listCount: 1, sendAt: h.clock.now() - 86_400_000 });
      const urgent = await ownedTask(h, ['enqueue'], { priority: 'realtime' });
      for (const task of [normal, urgent]) a.enqueue(task);
      await a.pump();
      expect(calls).toEqual([]);
      expect(h.tasks.queued).toBe(2);
    });
  });

  describe('a failed admission', () => {
    /** admission over a store whose listUnits fails once with `error`. */
    function failingOnce(error: Error): Admission {
      let failed = false;
      const store = new Proxy(h.store, {
        get(target, name, receiver) {
          if (name !== 'listUnits') return Reflect.get(target, name, receiver) as unknown;
          return async (taskId: number): Promise<ExecutionUnit[]> => {
            if (failed) return target.listUnits(taskId);
            failed = true;
            throw error;
          };
        },
      }) as TaskStore;
      const ctx: SchedulerContext = { ...h.ctx, store };
      return createAdmission(ctx, needs);
    }

    it('gives the slot back to a task still queued, which the next pump admits', async () => {
      await open(1);
      const a = failingOnce(new HeraldError(ErrorCodes.UNAVAILABLE, 'task store unavailable (test)'));
      const task = await ownedTask(h, [...TO_SENDING, 'preempt']);
      a.enqueue(task);
      await a.pump();
      expect([state(task), h.tasks.active, h.tasks.queued]).toEqual(['PREEMPTED', 0, 1]);
      expect(h.logs).toContain('error: admitting a task failed; it waits for the next pump');
      await a.pump();
      expect([state(task), h.tasks.active, calls]).toEqual(['SENDING', 1, [`run ${task.id}@1 x1`]]);
    });

    it('drops a task another owner took (FENCED) and goes on with the next', async () => {
      await open(2);
      const a = failingOnce(new FencedError(1, 1, 2));
      const taken = await ownedTask(h, [...TO_SENDING, 'preempt'], { priority: 'realtime' });
      const next = await ownedTask(h, ['enqueue']);
      for (const task of [taken, next]) a.enqueue(task);
      await a.pump();
      expect(h.tasks.has(taken.id)).toBe(false);
      expect([h.tasks.active, calls]).toEqual([1, [`preprocess ${next.id}`]]);
    });
  });
});
