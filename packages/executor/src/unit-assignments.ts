import type { Clock, Logger, Meter, TaskStore } from '@herald/core/ports';
import type { UnitBatch } from '@herald/transport';

/**
 * How long a read that found a unit assigned to this executor is trusted.
 * Only a unit whose executor went silent moves (after scheduler.unitStallMs
 * without progress), so a live executor learns of a move within this.
 */
export const ASSIGNMENT_REFRESH_MS = 1_000;

/** Tasks whose units' assignments are kept; past it the oldest is forgotten (and read again when seen). */
const ASSIGNMENT_MEMORY = 65_536;

/**
 * Whether a unit is still this executor's: the last fence before delivery
 * for a unit that moved (docs/operations.md, "An executor lost").
 *
 * When an executor stops reporting, its units move to a live executor: the
 * owner stores the new assignment (the unit's executorId) before the unit
 * runs there. Batches already queued in ZeroMQ for the silent executor still
 * reach it if it comes back; the store is the one place it can learn that
 * the unit is no longer its own, so it asks before delivering.
 *
 * - "Mine" is trusted for ASSIGNMENT_REFRESH_MS, so a unit streaming here
 *   costs one read of its task's units per second, not one per batch.
 * - "Not mine" is trusted only from a read that began after the batch was
 *   taken up (`since`): a unit moved here a moment ago must not be refused
 *   on an older read. A returning executor so reads once per stale batch,
 *   which it drops (cheaper than delivering it).
 * - A unit the store does not list, or a store that cannot be read, counts
 *   as mine: no less available than before this check (the batch is
 *   delivered, as it always was).
 */
export interface UnitAssignments {
  /** True when the store, read no earlier than the rules above allow, names this executor for the unit. */
  isMine(taskId: number, unitNo: number, since: number): Promise<boolean>;
}

interface Read {
  /** When the read began (this executor's clock). */
  readonly at: number;
  /** Each unit's executor, once read; undefined when the store could not be read. */
  readonly owners: Promise<Map<number, string> | undefined>;
}

export function unitAssignments(
  store: Pick<TaskStore, 'listUnits'>,
  executorId: string,
  clock: Clock,
  refreshMs = ASSIGNMENT_REFRESH_MS,
): UnitAssignments {
  const reads = new Map<number, Read>();

  function readTask(taskId: number): Read {
    const read: Read = {
      at: clock.now(),
      owners: store.listUnits(taskId).then(
        (units) => new Map(units.map((u) => [u.unitNo, u.executorId])),
        () => undefined,
      ),
    };
    reads.delete(taskId); // re-inserted last: a Map iterates oldest first
    reads.set(taskId, read);
    if (reads.size > ASSIGNMENT_MEMORY) reads.delete(reads.keys().next().value!);
    return read;
  }

  const verdict = async (read: Read, unitNo: number) => {
    const owner = (await read.owners)?.get(unitNo);
    return owner === undefined || owner === executorId;
  };

  return {
    async isMine(taskId, unitNo, since) {
      const last = reads.get(taskId);
      if (last !== undefined) {
        const mine = await verdict(last, unitNo);
        if (mine ? clock.now() - last.at < refreshMs : last.at >= since) return mine;
      }
      const current = reads.get(taskId); // another batch may have begun a newer read meanwhile
      return verdict(
        current !== undefined && current !== last && current.at >= since ? current : readTask(taskId),
        unitNo,
      );
    },
  };
}

/** Units whose dropped batches a guard logs, once each; past it the log set starts again. */
const LOGGED_MEMORY = 65_536;

export interface MovedBatchGuardDeps {
  store: Pick<TaskStore, 'listUnits'>;
  executorId: string;
  clock: Clock;
  logger: Logger;
  meter: Meter;
}

/**
 * The executor's check before it delivers a batch: true (counted in
 * herald_executor_moved_batches_total, logged once per unit) when the store
 * names another executor for the batch's unit. `since`: when the batch was
 * taken up, on `clock`.
 */
export function movedBatchGuard(deps: MovedBatchGuardDeps): (batch: UnitBatch, since: number) => Promise<boolean> {
  const assignments = unitAssignments(deps.store, deps.executorId, deps.clock);
  const moved = deps.meter.counter(
    'herald_executor_moved_batches_total',
    'Batches dropped before delivery: their unit was moved to another executor while this one was silent',
    ['executor'],
  );
  const logged = new Set<string>();
  return async (batch, since) => {
    if (await assignments.isMine(batch.taskId, batch.unitNo, since)) return false;
    moved.inc({ executor: deps.executorId });
    const unit = `${batch.taskId}/${batch.unitNo}`;
    if (!logged.has(unit)) {
      if (logged.size >= LOGGED_MEMORY) logged.clear();
      logged.add(unit);
      deps.logger.warn('batch of a unit moved to another executor dropped', {
        taskId: batch.taskId,
        unitNo: batch.unitNo,
        offset: batch.offset,
        epoch: batch.epoch,
      });
    }
    return true;
  };
}
