import { availableParallelism } from 'node:os';
import type { HeraldConfig } from '@herald/core/config';
import type { ListSegment } from '@herald/core/dispatch';
import type { Logger } from '@herald/core/ports';
import { loadRecipientList, type ListRepository } from '@herald/audience';
import type { PlannedUnit, PreprocessRequest, PreprocessResult } from '@herald/transport';
import { runFilterChain, type RecipientFilter } from './filters/filter';
import { runFilterChainParallel } from './filters/parallel';
import { sortListInPlace } from './filters/value-ranges';
import { PreprocessOutcomes } from './preprocess-outcome';
import { ListFlags } from '@herald/core/recipient-list';
import { sampleThenRest, samplePositionsFirst } from './canary-split';
import type { RolloutSource } from './filters/holdout';
import { deliveryOrderListIdOf } from '@herald/core/task';
import { groupByLocalTime, type LocalGrouping, type LocalTimeSource } from './local-groups';

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
  /**
   * The task's execution units over `count` filtered recipients (the dispatcher plans them by load:
   * plan-units.ts); with `segments`, over those parts of the list, no unit crossing from one into the next.
   */
  planUnits(taskId: number, count: number, segments?: readonly ListSegment[]): PlannedUnit[];
  /** The task's rollout (its canary), read from the task store; absent: no task has a canary. */
  rollouts?: RolloutSource;
  /** Local-time delivery (local-groups.ts): without it every task is sent at its one instant. */
  localTime?: LocalTimeSource;
  /** Told how long each stage took, in seconds, as it ends (the dispatcher's stage histogram). */
  stageEnded?: (stage: PreprocessStage, seconds: number) => void;
  logger: Logger;
}

/**
 * A pre-processing's stages, in order: reading the uploaded list; sorting and
 * filtering it (the filter chain); the rollout, local-time groups and unit
 * plan; writing the filtered list, its removed sets and the outcome (each
 * fsynced).
 */
export type PreprocessStage = 'load' | 'filter' | 'plan' | 'write';

/**
 * Pre-processing of one task: load its list, sort it once, run the filter
 * chain (in worker threads over ranges of values for a large list: the same
 * output as one thread, filters/parallel.ts), write the filtered list (sorted, distinct) as a new recipient-list
 * file, and plan the execution units over it. A canary's list is written
 * sample first, a local-time task's group after group (local-groups.ts):
 * distinct sorted runs, in the order the units send them.
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
  const clock = new StageClock(deps.stageEnded);
  // Shared memory when workers may filter it: they sort and filter the list where it lies.
  const uins = await loadRecipientList(deps.lists.pathOf(request.listId), {
    uinLimit: deps.config.uinLimit,
    shared: workers > 1,
  });
  const total = uins.length;
  clock.lap('load');
  const context = { taskId: request.taskId, accountId: request.accountId, contentCrc: request.contentCrc };
  // Each link's removals are kept beside the filtered list, to answer a recipient's fate (docs/recipient-truth.md).
  const { kept, removed, removedSets, complete } =
    workers > 1 && total >= PARALLEL_FROM
      ? await runFilterChainParallel(uins, deps.filters, context, { workers, record: true })
      : await runFilterChain(sortListInPlace(uins), deps.filters, context, { record: true });
  clock.lap('filter');
  const rollout = await deps.rollouts?.rolloutOf(context);
  // A canary sends its sample first (docs/rollouts.md): its positions lead the list, its units lead the plan.
  const split = rollout?.canary === undefined ? undefined : samplePositionsFirst(kept, rollout);
  // A canary is never local-time (refused at creation, core task/validate.ts): at most one of the two reorders.
  const grouping = split === undefined ? await localGrouping(request.taskId, kept, deps) : undefined;
  const units =
    split !== undefined
      ? deps.planUnits(request.taskId, kept.length, sampleThenRest(kept.length, split.sample))
      : grouping === undefined
        ? deps.planUnits(request.taskId, kept.length)
        : groupUnits(request.taskId, grouping, deps);
  clock.lap('plan');
  const record = { sets: removedSets ?? [], complete: complete ?? false };
  // A canary's list is its sample then the rest, a local-time task's its groups one after another: sorted runs.
  const list = split?.list ?? grouping?.list ?? kept;
  const result = await outcomes.publish(
    list,
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
      ...(grouping === undefined ? {} : { groups: grouping.groups }),
      ...(split === undefined ? {} : { sample: split.sample }),
    },
    {
      flags: list === kept ? ListFlags.SORTED | ListFlags.UNIQUE : ListFlags.UNIQUE,
      ...(grouping === undefined ? {} : { alsoAs: deliveryOrderListIdOf(request.taskId) }),
    },
  );
  clock.lap('write');
  deps.logger.info('pre-processed', {
    taskId: request.taskId,
    ms: clock.laps,
    total: result.total,
    kept: result.kept,
    removed: result.removed,
    units: result.units.length,
    ...(result.groups === undefined ? {} : { groups: result.groups.length }),
  });
  return result;
}

/** How long each stage took: each lap ends one and starts the next. */
class StageClock {
  /** Each stage's time in whole milliseconds, for the log line. */
  readonly laps: Partial<Record<PreprocessStage, number>> = {};
  private last = performance.now();

  constructor(private readonly ended?: (stage: PreprocessStage, seconds: number) => void) {}

  lap(stage: PreprocessStage): void {
    const now = performance.now();
    this.laps[stage] = Math.round(now - this.last);
    this.ended?.(stage, (now - this.last) / 1000);
    this.last = now;
  }
}

/** A local-time task's groups over its filtered list; undefined for a task of one instant. */
async function localGrouping(
  taskId: number,
  kept: Uint32Array,
  deps: PreprocessDeps,
): Promise<LocalGrouping | undefined> {
  const source = deps.localTime;
  const task = source === undefined ? undefined : await source.taskOf(taskId);
  if (source === undefined || task === undefined) return undefined;
  return groupByLocalTime(kept, task, source.index, source.clock.now());
}

/** Units planned once for the groups sent, so that none straddles two release instants; a skipped group gets none. */
function groupUnits(taskId: number, grouping: LocalGrouping, deps: PreprocessDeps): PlannedUnit[] {
  // A group is a segment as it is ({ start, end } and more): no copy.
  const sent = grouping.groups.filter((group) => !group.skipped && group.end > group.start);
  const count = sent.reduce((sum, group) => sum + group.end - group.start, 0);
  return deps.planUnits(taskId, count, sent);
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
