import type { Delivery } from '@herald/core/ports';
import type { Task } from '@herald/core/task';

/**
 * What a delivery of `task` carries besides recipients and content: its
 * display time (a pre-delivered task only), expiry and collapse key, for the
 * channels that pass them on (exactOptionalPropertyTypes keeps absent absent).
 */
export function termsOf(
  task: Pick<Task, 'displayAt' | 'expiresAt' | 'collapseKey'>,
): Pick<Delivery, 'displayAt' | 'expiresAt' | 'collapseKey'> {
  return {
    ...(task.displayAt === undefined ? {} : { displayAt: task.displayAt }),
    expiresAt: task.expiresAt,
    ...(task.collapseKey === undefined ? {} : { collapseKey: task.collapseKey }),
  };
}
