import type { Clock, Logger, Meter, TaskPatch, TaskStore } from '@herald/core/ports';
import type { Fence, Task, TaskEvent } from '@herald/core/task';
import type { HeraldConfig } from '@herald/core/config';
import type { PushChannel } from '@herald/transport';
import type { ProgressRecorder } from './progress-recorder';
import type { SchedulerMetrics } from './scheduler-metrics';
import type { TaskTable } from './task-table';

/**
 * What every part of the scheduler shares: its ports, its table of owned
 * tasks and the one fenced way to move a task. Each part (admission, the
 * unit driver, halts, ownership, the stall rescue) takes this plus a small
 * interface of its own naming the few calls it needs from the others, so
 * none imports another and the assembly (scheduler.ts) wires them.
 */
export interface SchedulerContext {
  readonly config: HeraldConfig;
  /** This scheduler's id (config.scheduler.id): the owner it writes when it claims a task. */
  readonly me: string;
  readonly store: TaskStore;
  /** preprocess.request, unit.run, task.halt. */
  readonly toDispatcher: PushChannel;
  readonly recorder: ProgressRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly meter: Meter;
  readonly metrics: SchedulerMetrics;
  readonly tasks: TaskTable;
  /** Moves a task through its state machine in the store, fenced by its epoch, and holds the result. */
  transition(task: Task, event: TaskEvent, patch?: TaskPatch): Promise<Task>;
}

export type ContextPorts = Omit<SchedulerContext, 'transition'>;

export function fenceOf(task: Task): Fence {
  return { epoch: task.epoch };
}

export function schedulerContext(ports: ContextPorts): SchedulerContext {
  const { store, clock, logger, tasks } = ports;
  const transitions = ports.meter.counter('herald_task_transitions_total', 'Task state transitions', ['event']);
  return {
    ...ports,
    async transition(task, event, patch = {}) {
      const next = await store.transitionTask(task.id, fenceOf(task), event, patch, clock.now());
      tasks.hold(next);
      transitions.inc({ event });
      logger.debug('task transition', { taskId: task.id, from: task.state, event, to: next.state });
      return next;
    },
  };
}
