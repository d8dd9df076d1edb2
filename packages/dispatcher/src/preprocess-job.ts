import { isHeraldError } from '@herald/core';
import type { Clock, Logger } from '@herald/core/ports';
import type { DispatcherMetrics } from './dispatcher-metrics';
import type { HeraldConfig } from '@herald/core/config';
import type { ListRepository } from '@herald/audience';
import type { PreprocessRequest, PreprocessResult, PushChannel } from '@herald/transport';
import type { RecipientFilter } from './filters/filter';
import type { RolloutSource } from './filters/holdout';
import type { HostLoads } from './host-loads';
import { planUnits } from './plan-units';
import { preprocess } from './preprocess';
import type { LocalTimeSource } from './local-groups';

export interface PreprocessJobDeps {
  config: HeraldConfig;
  lists: ListRepository;
  filters: readonly RecipientFilter[];
  /** The tasks' rollouts: a canary's sample goes first (preprocess.ts). */
  rollouts?: RolloutSource;
  /** Where the preprocess.result goes. */
  toScheduler: PushChannel;
  /** The executors a task's units may be planned on, and their latest load reports. */
  executorIds: readonly string[];
  hostLoads: HostLoads;
  clock: Clock;
  /** Local-time delivery's zones and clock (preprocess.ts); absent: every task is sent at its one instant. */
  localTime?: LocalTimeSource;
  logger: Logger;
  metrics: Pick<
    DispatcherMetrics,
    'preprocessed' | 'filtered' | 'preprocessSeconds' | 'preprocessStageSeconds' | 'errors' | 'unitPlans'
  >;
}

/**
 * Sends a pre-processing result, never throwing: the dispatcher runs the jobs on one
 * promise chain, and a rejection there would skip every later request
 * (and surface as an unhandled rejection). A result that cannot be sent
 * (the link closing at shutdown) is logged; the task stays PREPROCESSING
 * until its scheduler re-queues it (at adoption).
 */
async function answer(result: PreprocessResult, deps: PreprocessJobDeps): Promise<void> {
  try {
    await deps.toScheduler.send(result);
  } catch (error) {
    deps.metrics.errors.inc({ code: isHeraldError(error) ? error.code : 'INTERNAL' });
    deps.logger.warn('pre-processing result not sent', { taskId: result.taskId, error: String(error) });
  }
}

/**
 * Runs one pre-processing request (load, sort, filter, write the filtered
 * list, plan units on the executors' latest loads) and answers the scheduler,
 * never throwing: a failure is answered as a failed result.
 */
export async function runPreprocessJob(request: PreprocessRequest, deps: PreprocessJobDeps): Promise<void> {
  const { logger, clock, hostLoads, executorIds } = deps;
  const { preprocessed, filtered, preprocessSeconds, errors, unitPlans } = deps.metrics;
  const started = performance.now();
  try {
    const result = await preprocess(request, {
      config: deps.config,
      lists: deps.lists,
      filters: deps.filters,
      planUnits: (taskId, count, segments) =>
        planUnits(
          taskId,
          count,
          {
            config: deps.config,
            executorIds,
            loads: hostLoads.latest(),
            now: clock.now(),
            logger,
            planned: (reason) => unitPlans.inc({ reason }),
            speed: request.speed,
          },
          segments,
        ),
      ...(deps.rollouts === undefined ? {} : { rollouts: deps.rollouts }),
      ...(deps.localTime === undefined ? {} : { localTime: deps.localTime }),
      stageEnded: (stage, seconds) => deps.metrics.preprocessStageSeconds.observe(seconds, { stage }),
      logger,
    });
    preprocessSeconds.observe((performance.now() - started) / 1000);
    if (result.ok) {
      preprocessed.inc(undefined, result.total);
      for (const [reason, count] of Object.entries(result.removed))
        if (count !== undefined && count > 0) filtered.inc({ reason }, count);
    }
    await answer(result, deps);
  } catch (error) {
    errors.inc({ code: isHeraldError(error) ? error.code : 'INTERNAL' });
    logger.error('pre-processing failed', { taskId: request.taskId, error: String(error) });
    await answer(
      {
        kind: 'preprocess.result',
        ok: false,
        taskId: request.taskId,
        epoch: request.epoch,
        errorCode: isHeraldError(error) ? error.code : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
      },
      deps,
    );
  }
}
