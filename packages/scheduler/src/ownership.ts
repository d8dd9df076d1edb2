import { taskMachine, type Task } from '@herald/core/task';
import type { HashRing } from '@herald/core/ring';
import type { SchedulerContext } from './context';

/** What one `rebalance` moved. */
export interface Rebalanced {
  /** Live tasks claimed (epoch + 1) and re-entered. */
  adopted: number;
  /** Owned tasks forgotten because the ring gives them to another member. */
  released: number;
}

/** What ownership needs from the scheduler around it (wired by scheduler.ts). */
export interface OwnershipNeeds {
  /** The allocation ring of WORKING schedulers, as it is now. */
  ring(): HashRing;
  /** Whether this scheduler may claim tasks it does not hold now (its membership is current). */
  mayAdopt(): boolean;
  /** Puts a task just claimed where its stored state says it waits (admission). */
  enter(task: Task): Promise<void>;
  /** Admits queued tasks while slots are free (admission). */
  pump(): Promise<void>;
  /** Runs a job for a task; a FENCED answer drops the task, other errors are logged (the job loop). */
  safely(taskId: number | undefined, job: () => Promise<void>, what: string): Promise<void>;
}

/**
 * Which tasks this scheduler owns: it claims a task (epoch + 1) when a
 * message names one the ring gives it, adopts at start, on a ring change and
 * in the sweep every live task the ring gives it, releases those the ring
 * gives another member, and claims a task again to resume it under a new
 * epoch after a closing halt.
 */
export interface Ownership {
  /** The task, held or claimed now; undefined when it is another member's, unknown or finished. */
  ensureOwned(taskId: number): Promise<Task | undefined>;
  /**
   * Takes a new epoch for a task this scheduler halted with a closing halt,
   * before its units run again: executors drop every batch of the task at or
   * below the closed epoch (docs/scheduling.md, "The bound"), so a resume
   * under it would be dropped too. Called right after a fenced write under the
   * old epoch succeeded, so this scheduler still owned the task a moment ago;
   * the claim is not fenced itself (the store has no such write), which leaves
   * a window of one store round trip in which a new owner's claim, if one
   * came, would be taken back, as `ensureOwned` can too; that owner is fenced
   * out at its next write and drops the task, and the ring's owner adopts it
   * again.
   */
  claimAgain(task: Task): Promise<Task>;
  /** One pass of following the ring (release, then adopt, then pump); the caller runs it in the serial queue. */
  followRing(what: string): Promise<Rebalanced>;
  /** Start-up recovery: adopts every live task the ring gives this scheduler. A store that cannot list its tasks rejects. */
  recover(): Promise<void>;
}

export function createOwnership(ctx: SchedulerContext, needs: OwnershipNeeds): Ownership {
  const { store, clock, logger, tasks, me } = ctx;
  const adoptedTotal = ctx.meter.counter(
    'herald_scheduler_adopted_tasks_total',
    'Live tasks claimed from the store at start, on a ring change or by the sweep',
  );
  const releasedTotal = ctx.meter.counter(
    'herald_scheduler_released_tasks_total',
    'Owned tasks forgotten because the ring gives them to another scheduler',
  );

  async function ensureOwned(taskId: number): Promise<Task | undefined> {
    const held = tasks.task(taskId);
    if (held) return held;
    if (needs.ring().ownerOf(taskId) !== me) {
      logger.debug('task belongs to another scheduler on the ring', { taskId, owner: needs.ring().ownerOf(taskId) });
      return undefined;
    }
    const stored = await store.getTask(taskId);
    if (stored === undefined) {
      logger.warn('message names an unknown task', { taskId });
      return undefined;
    }
    if (taskMachine.isTerminal(stored.state)) return undefined;
    const claimed = await store.claimTask(taskId, me, clock.now());
    tasks.hold(claimed);
    await needs.enter(claimed);
    return tasks.task(taskId);
  }

  async function claimAgain(task: Task): Promise<Task> {
    const claimed = await store.claimTask(task.id, me, clock.now());
    tasks.hold(claimed).closedEpoch = undefined;
    logger.debug('task claimed again to resume under a new epoch', {
      taskId: task.id,
      closed: task.epoch,
      epoch: claimed.epoch,
    });
    return claimed;
  }

  /**
   * Forgets every owned task the ring gives another member. Nothing is sent or
   * written for it: the new owner claims it with a higher epoch, which fences
   * out any write of ours, and its unit.run supersedes our streams.
   */
  function releaseLost(current: HashRing): number {
    let released = 0;
    for (const { task } of tasks.all()) {
      if (current.ownerOf(task.id) === me) continue;
      tasks.forget(task.id);
      released++;
    }
    if (released > 0) releasedTotal.inc(undefined, released);
    return released;
  }

  /**
   * Claims every live task the ring gives this scheduler that it does not own
   * yet (epoch + 1, whoever held it) and re-enters its stored state, as at
   * start: SENDING goes back through requeue and admission to resumeSending,
   * its units resuming from their checkpoints.
   */
  async function adoptMine(current: HashRing, result: Rebalanced): Promise<void> {
    for (const stored of await store.listLiveTasks()) {
      if (tasks.has(stored.id) || current.ownerOf(stored.id) !== me) continue;
      await needs.safely(
        stored.id,
        async () => {
          const claimed = await store.claimTask(stored.id, me, clock.now());
          tasks.hold(claimed);
          result.adopted++;
          adoptedTotal.inc();
          await needs.enter(claimed);
        },
        'adopt',
      );
    }
  }

  async function followRing(what: string): Promise<Rebalanced> {
    const result: Rebalanced = { adopted: 0, released: 0 };
    await needs.safely(
      undefined,
      async () => {
        const current = needs.ring();
        if (current.size === 0) return; // not WORKING: take nothing, keep what we have (the store's fencing protects it)
        result.released = releaseLost(current);
        if (needs.mayAdopt()) await adoptMine(current, result);
      },
      what,
    );
    if (result.adopted > 0 || result.released > 0)
      logger.info('scheduler followed the ring', { what, ...result, owned: tasks.size });
    await needs.safely(undefined, () => needs.pump(), what);
    return result;
  }

  async function recover(): Promise<void> {
    const current = needs.ring();
    const result: Rebalanced = { adopted: 0, released: 0 };
    if (current.size > 0) await adoptMine(current, result);
    if (result.adopted > 0) logger.info('scheduler recovered live tasks', { adopted: result.adopted });
    await needs.safely(undefined, () => needs.pump(), 'recovery');
  }

  return { ensureOwned, claimAgain, followRing, recover };
}
