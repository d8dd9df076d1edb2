import { ListFlags, radixSortUint32, type HeraldConfig, type Logger } from '@herald/core';
import { loadRecipientList, writeRecipientListFile, type ListRepository } from '@herald/audience';
import type { PreprocessRequest, PreprocessResult } from '@herald/transport';
import { runFilterChain, type RecipientFilter } from './filters/filter';
import { planUnits, type ExecutorLoad } from './plan-units';

export interface PreprocessDeps {
  config: HeraldConfig;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  executorLoads(): ExecutorLoad[];
  logger: Logger;
}

/**
 * Pre-processing of one task: load its list, sort it once, run the filter
 * chain, write the filtered list (sorted, distinct) as a new recipient-list
 * file, and plan the execution units over it.
 *
 * The filtered list id is derived from the task id, so a retried
 * pre-processing overwrites its own earlier output instead of leaking files.
 */
export async function preprocess(request: PreprocessRequest, deps: PreprocessDeps): Promise<PreprocessResult> {
  const uins = await loadRecipientList(deps.lists.pathOf(request.listId), { uinLimit: deps.config.uinLimit });
  const total = uins.length;
  radixSortUint32(uins);
  const { kept, removed } = await runFilterChain(uins, deps.filters, {
    taskId: request.taskId,
    accountId: request.accountId,
    contentCrc: request.contentCrc,
  });
  const filteredListId = filteredListIdOf(request.taskId);
  await writeRecipientListFile(deps.lists.pathOf(filteredListId), kept, ListFlags.SORTED | ListFlags.UNIQUE);
  const units = planUnits(kept.length, deps.config.dispatcher.unitSize, deps.executorLoads());
  deps.logger.info('pre-processed', { taskId: request.taskId, total, kept: kept.length, removed, units: units.length });
  return { kind: 'preprocess.result', ok: true, taskId: request.taskId, epoch: request.epoch, filteredListId, total, kept: kept.length, removed, units };
}

export function filteredListIdOf(taskId: number): string {
  return `f_${taskId}`;
}
