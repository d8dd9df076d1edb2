import { availableParallelism } from 'node:os';
import { ListFlags, radixSortUint32, type HeraldConfig, type Logger } from '@herald/core';
import { loadRecipientList, writeRecipientListFile, type ListRepository } from '@herald/audience';
import type { PreprocessRequest, PreprocessResult } from '@herald/transport';
import { runFilterChain, type RecipientFilter } from './filters/filter';
import { runFilterChainParallel } from './filters/parallel';
import { planUnits, type ExecutorLoad } from './plan-units';

export interface PreprocessDeps {
  config: HeraldConfig;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  /**
   * Worker threads the chain's in-memory links run in (filters/parallel.ts),
   * for lists of at least PARALLEL_FROM recipients; 1 or less: this thread.
   * @defaultValue the machine's cores (os.availableParallelism())
   */
  filterWorkers?: number;
  executorLoads(): ExecutorLoad[];
  logger: Logger;
}

/**
 * Pre-processing of one task: load its list, sort it once, run the filter
 * chain (in worker threads over hash-split chunks for a large list: the same
 * output as one thread, filters/parallel.ts), write the filtered list (sorted, distinct) as a new recipient-list
 * file, and plan the execution units over it.
 *
 * The filtered list id is derived from the task id, so a retried
 * pre-processing overwrites its own earlier output instead of leaking files.
 */
export async function preprocess(request: PreprocessRequest, deps: PreprocessDeps): Promise<PreprocessResult> {
  const uins = await loadRecipientList(deps.lists.pathOf(request.listId), { uinLimit: deps.config.uinLimit });
  const total = uins.length;
  const context = { taskId: request.taskId, accountId: request.accountId, contentCrc: request.contentCrc };
  const workers = deps.filterWorkers ?? availableParallelism();
  const { kept, removed } =
    workers > 1 && total >= PARALLEL_FROM
      ? await runFilterChainParallel(uins, deps.filters, context, { workers })
      : await runFilterChain(radixSortUint32(uins), deps.filters, context);
  const filteredListId = filteredListIdOf(request.taskId);
  await writeRecipientListFile(deps.lists.pathOf(filteredListId), kept, ListFlags.SORTED | ListFlags.UNIQUE);
  const units = planUnits(kept.length, deps.config.dispatcher.unitSize, deps.executorLoads());
  deps.logger.info('pre-processed', { taskId: request.taskId, total, kept: kept.length, removed, units: units.length });
  return { kind: 'preprocess.result', ok: true, taskId: request.taskId, epoch: request.epoch, filteredListId, total, kept: kept.length, removed, units };
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
