import { planDispatch, type ListSegment, type ReceivedLoad } from '@herald/core/dispatch';
import type { HeraldConfig } from '@herald/core/config';
import type { Logger } from '@herald/core/ports';
import type { PlannedUnit } from '@herald/transport';

export interface UnitPlanContext {
  config: HeraldConfig;
  /** The executors this dispatcher can send to, in a stable order. */
  executorIds: readonly string[];
  /** The latest report per executor (HostLoads). */
  loads: readonly ReceivedLoad[];
  now: number;
  logger: Logger;
  /** Counts each plan by its reason (herald_dispatcher_unit_plans_total). */
  planned?: (reason: string) => void;
  /** Recipients per second the task asks for (preprocess.request's speed); 0 or absent: none. */
  speed?: number;
}

/** Fallbacks an operator should hear about: the plan could not follow the loads. */
const FALLBACKS: Record<string, string> = {
  'no-fresh-report': 'no executor reported its load within load.maxReportAgeMs: units split evenly over every executor',
  'no-free-slot': 'every executor reporting its load has no free sender slot: units split evenly over them',
  saturated: 'no executor has spare CPU, NIC or memory: units split evenly over those with a free slot',
  short: 'the executors together cannot meet the estimated need: units spread over all with spare capacity',
};

/**
 * A task's execution units over the executors by their hosts' load (core
 * planDispatch; docs/scheduling.md "Load-aware dispatch"). A task that asks
 * for a speed was allowed it at creation (its account's maxSpeed), so it is
 * planned for that speed; a task without one counts as one whose account may
 * not set it: its speed is a share of the cluster's spare capacity. A task
 * sent in parts (`segments`: a canary's sample and the rest, a local-time
 * task's groups) is planned once, each part cut over the same hosts, so the
 * plan is logged and counted once per task.
 */
export function planUnits(
  taskId: number,
  count: number,
  context: UnitPlanContext,
  segments?: readonly ListSegment[],
): PlannedUnit[] {
  if (count === 0) return []; // nothing to send: no plan, and nothing to warn about
  const plan = planDispatch({
    ...(segments === undefined ? {} : { segments }),
    task:
      context.speed === undefined || context.speed <= 0
        ? { count, maySetSpeed: false }
        : { count, maySetSpeed: true, requestedSpeed: context.speed },
    unitSize: context.config.dispatcher.unitSize,
    executorIds: context.executorIds,
    loads: context.loads,
    now: context.now,
    config: context.config.load,
  });
  context.planned?.(plan.reason);
  const fields = {
    taskId,
    count,
    reason: plan.reason,
    hosts: plan.hosts,
    units: plan.units.length,
    ...(segments === undefined ? {} : { segments: segments.length }),
    speed: plan.speed,
    needs: plan.needs,
  };
  const fallback = FALLBACKS[plan.reason];
  if (fallback === undefined) context.logger.info('units planned by load', fields);
  else context.logger.warn(`units planned without load: ${fallback}`, fields);
  return plan.units;
}
