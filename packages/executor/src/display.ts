import type { Delivery } from '@herald/core/ports';
import type { Task } from '@herald/core/task';

/** The display-time part of a delivery of `task`: present only for a pre-delivered task (exactOptionalPropertyTypes keeps absent absent). */
export function displayOf(task: Pick<Task, 'displayAt'>): Pick<Delivery, 'displayAt'> {
  return task.displayAt === undefined ? {} : { displayAt: task.displayAt };
}
