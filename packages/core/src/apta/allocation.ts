import { ValidationError } from '../errors';
import { HashRing } from '../ring/hash-ring';
import { MEMBER_ID } from './messages';

/**
 * Virtual nodes per member on the allocation ring (`apta.virtualNodes` sets another). 2000, not HashRing's 160:
 * over 10^6 task ids the busiest of 200 members holds 1.074 x the mean with 2000 and 1.286 x with 160
 * (bench/apta-scale.js); the ring of 200 members builds in about 0.3 s.
 */
export const APTA_VNODES = 2000;

/**
 * The allocation: task ids hashed over the ring of the given members (a
 * WORKING view's `ring`). Every process that holds the same member list
 * builds the identical ring, so they agree on every owner without talking.
 * An empty list owns nothing (`ownerOf` is undefined).
 */
export function allocateTasks(members: readonly string[], vnodes: number = APTA_VNODES): HashRing {
  for (const id of members) {
    if (typeof id !== 'string' || !MEMBER_ID.test(id))
      throw new ValidationError('allocation member ids must be 1-64 letters, digits, _ . -', { id });
  }
  if (!Number.isInteger(vnodes) || vnodes < 1 || vnodes > 10_000)
    throw new ValidationError('vnodes must be an integer in [1, 10000]', { vnodes });
  return new HashRing(members, vnodes);
}

/** A task whose owner differs between two allocations (undefined: nobody). */
export interface TaskMove {
  taskId: number;
  from: string | undefined;
  to: string | undefined;
}

/**
 * The tasks among `taskIds` whose owner differs from `before` to `after`, in
 * the order given: what a membership change hands over. A process drops the
 * moves `from` itself and claims (in the task store, raising the epoch) the
 * moves `to` itself.
 */
export function ownershipMoves(before: HashRing, after: HashRing, taskIds: Iterable<number>): TaskMove[] {
  const moves: TaskMove[] = [];
  for (const taskId of taskIds) {
    const from = before.ownerOf(taskId);
    const to = after.ownerOf(taskId);
    if (from !== to) moves.push({ taskId, from, to });
  }
  return moves;
}
