import { availableParallelism } from 'node:os';
import { radixSortUint32 } from '@herald/core/uins';
import type { HeraldConfig } from '@herald/core/config';
import type { Logger } from '@herald/core/ports';
import { loadRecipientList, type ListRepository } from '@herald/audience';
import type { PlannedUnit, PreprocessRequest, PreprocessResult } from '@herald/transport';
import { runFilterChain, type RecipientFilter } from './filters/filter';
import { runFilterChainParallel } from './filters/parallel';
import { PreprocessOutcomes } from './preprocess-outcome';
import { ListFlags } from '@herald/core/recipient-list';
import { planAroundSample, samplePositionsFirst } from './canary-split';
import type { RolloutSource } from './filters/holdout';

export interface PreprocessDeps {
  config: HeraldConfig;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  /**
   * Worker threads the chain's in-memory links run in (filters/parallel.ts),
   * for lists of at least PARALLEL_FROM recipients; 1 or less: this thread.
   * @defaultValue `dispatcher.filterWorkers`, whose 0 is the machine's cores (os.availableParallelism())
   */
  filterWorkers?: number;
  /** The task's execution units over `count` filtered recipients (the dispatcher plans them by load: plan-units.ts). */
  planUnits(taskId: number, count: number): PlannedUnit[];
  /** The task's rollout (its canary), read from the task store; absent: no task has a canary. */
  rollouts?: RolloutSource;
  logger: Logger;
}

/**
 * Pre-processing of one task: load its list, sort it once, run the filter
 * chain (in worker threads over hash-split chunks for a large list: the same
 * output as one thread, filters/parallel.ts), write the filtered list (sorted, distinct) as a new recipient-list
 * file, and plan the execution units over it.
 *
 * A task is pre-processed once (preprocess-outcome.ts): its filtered list
 * `f_<taskId>` and the result are published together, never replaced; a
 * request for a task already pre-processed (asked again after a result was
 * lost, or while a first run is still going) is answered with the recorded
 * result, under the asking owner's epoch, without running the chain again.
 */
export async function preprocess(request: PreprocessRequest, deps: PreprocessDeps): Promise<PreprocessResult> {
  const outcomes = new PreprocessOutcomes(deps.lists);
  const recorded = await outcomes.read(request.taskId, request.epoch);
  if (recorded !== undefined) {
    deps.logger.info('pre-processed already; answering the recorded result', {
      taskId: request.taskId,
      epoch: request.epoch,
      kept: recorded.kept,
    });
    return recorded;
  }
  const workers = deps.filterWorkers ?? (deps.config.dispatcher.filterWorkers || availableParallelism());
  // Shared memory when workers may filter it: they sort and merge the list where it lies.
  const uins = await loadRecipientList(deps.lists.pathOf(request.listId), {
    uinLimit: deps.config.uinLimit,
    shared: workers > 1,
  });
  const total = uins.length;
  const context = { taskId: request.taskId, accountId: request.accountId, contentCrc: request.contentCrc };
  // Each link's removals are kept beside the filtered list, to answer a recipient's fate (docs/recipient-truth.md).
  const { kept, removed, removedSets, complete } =
    workers > 1 && total >= PARALLEL_FROM
      ? await runFilterChainParallel(uins, deps.filters, context, { workers, record: true })
      : await runFilterChain(radixSortUint32(uins), deps.filters, context, { record: true });
  const rollout = await deps.rollouts?.rolloutOf(context);
  // A canary sends its sample first (docs/rollouts.md): its positions lead the list, its units lead the plan.
  const split = rollout?.canary === undefined ? undefined : samplePositionsFirst(kept, rollout);
  const units =
    split === undefined
      ? deps.planUnits(request.taskId, kept.length)
      : planAroundSample(kept.length, split.sample, (count) => deps.planUnits(request.taskId, count));
  const record = { sets: removedSets ?? [], complete: complete ?? false };
  const flags = split === undefined ? ListFlags.SORTED | ListFlags.UNIQUE : ListFlags.UNIQUE;
  const result = await outcomes.publish(
    split?.list ?? kept,
    record,
    {
      kind: 'preprocess.result',
      ok: true,
      taskId: request.taskId,
      epoch: request.epoch,
      filteredListId: filteredListIdOf(request.taskId),
      total,
      kept: kept.length,
      removed,
      units,
      ...(split === undefined ? {} : { sample: split.sample }),
    },
    flags,
  );
  deps.logger.info('pre-processed', {
    taskId: request.taskId,
    total: result.total,
    kept: result.kept,
    removed: result.removed,
    units: result.units.length,
  });
  return result;
}

/**
 * Lists smaller than this are filtered on the dispatcher's thread: starting
 * worker threads costs tens of milliseconds, which a list of 10^6 takes to
 * sort and filter on one core.
 */
export const PARALLEL_FROM = 1 << 20;

export function filteredListIdOf(taskId: number): string {
  return `f_${taskId}`;
}
