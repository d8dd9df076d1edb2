/**
 * @module @herald/core/dispatch
 *
 * Load-aware dispatch (docs/scheduling.md): a task's needs from its size and speed, placed
 * on the executor hosts' latest load reports.
 *
 * @example
 *   import { planDispatch } from '@herald/core/dispatch';
 *   const plan = planDispatch({ task, unitSize, executorIds, loads, now, config: config.load });
 */
export { planDispatch, needsOf } from './plan-dispatch';
export type {
  DispatchInput,
  DispatchNeeds,
  DispatchPlan,
  DispatchReason,
  DispatchTask,
  ListSegment,
  UnitPlacement,
} from './plan-dispatch';
export { freshLoads } from './host-load';
export type { HostLoad, ReceivedLoad } from './host-load';
