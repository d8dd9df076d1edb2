/**
 * @module @herald/core/task
 *
 * The task model: tasks and their execution units, both state machines (as tables), the
 * epoch fence, the record rules every `TaskStore` adapter shares, and the content a
 * recipient is sent.
 *
 * @example
 *   import { taskMachine, type Task } from '@herald/core/task';
 *   taskMachine.next('CREATED', 'enqueue'); // 'QUEUED'
 */
export { defineMachine } from './machine';
export type { StateMachine, TransitionTable } from './machine';
export { taskMachine, TASK_STATES, TASK_EVENTS, TERMINAL_TASK_STATES } from './task-machine';
export type { TaskState, TaskEvent } from './task-machine';
export { unitMachine, UNIT_STATES, UNIT_EVENTS } from './unit-machine';
export type { UnitState, UnitEvent } from './unit-machine';
export {
  FILTER_REASONS,
  CHANNEL_HOLD_STATES,
  CANARY_STATES,
  DEAD_LETTER_REASON,
  emptyReport,
  removedTotal,
  deliveryOrderListIdOf,
  filteredListRuns,
  localGroupAt,
} from './model';
export type {
  PriorityClass,
  FilterReason,
  TaskContent,
  NewTask,
  Task,
  TaskReport,
  ChannelHold,
  LocalGroup,
  ChannelHoldState,
  CanaryReport,
  CanaryState,
  NewUnit,
  ExecutionUnit,
  ListMeta,
} from './model';
export { checkFence } from './fence';
export { EpochFloor } from './epoch-floor';
export type { Fence } from './fence';
export { contentCrc, taskContentOf } from './content';
export {
  DEFAULT_TASK_RECORD_RULES,
  MAX_IDEMPOTENCY_KEY_CHARS,
  TASK_QUERY_DEFAULT_LIMIT,
  TASK_QUERY_MAX_LIMIT,
  TASK_QUERY_MAX_ACCOUNTS,
  checkIdString,
  isTaskId,
  checkNow,
  checkNewTask,
  newTaskRecord,
  checkLimit,
  checkOutboxRead,
  compileTaskQuery,
  checkContentQuery,
  checkedFence,
  checkUnitNo,
  applyTaskPatch,
  checkNewUnits,
  newUnitRecord,
  transitionedUnit,
  checkProgress,
  checkProgressInUnit,
  applyUnitProgress,
  checkListMeta,
  MAX_TASK_SPEED,
  isTaskSpeed,
  MAX_COLLAPSE_KEY_CHARS,
  checkCollapseKey,
  collapseScopeOf,
  checkTaskTargeting,
} from './validate';
export type { TaskRecordRules, CompiledTaskQuery } from './validate';
export { MAX_SEARCH_CHARS, DEFAULT_SEARCH_SCAN_BUDGET, compileTextSearch, matchesTextSearch } from './text-search';
export type { TextSearch } from './text-search';
