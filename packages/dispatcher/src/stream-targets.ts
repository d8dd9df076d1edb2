import BitSet from 'bitset';
import { LRUCache } from 'lru-cache';

/**
 * Which executors each task was streamed to, so that a task.halt closing an
 * epoch is forwarded to those executors and no others.
 *
 * A dispatcher's executors are fixed for its life and few (tens): each gets
 * an index, and a task's executors are a BitSet of indexes, a word or two
 * per task where a Set of id strings costs a hash table. Past `capacity`
 * tasks the least recently streamed one is forgotten (its halt then reaches
 * no executor early; the checkpoints stay right either way).
 */
export class StreamTargets {
  private readonly index = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly tasks: LRUCache<number, BitSet.BitSet>;

  /** `executorIds`: every executor a unit may be streamed to; duplicates count once. */
  constructor(executorIds: Iterable<string>, capacity: number) {
    for (const id of executorIds) {
      if (this.index.has(id)) continue;
      this.index.set(id, this.ids.length);
      this.ids.push(id);
    }
    this.tasks = new LRUCache({ max: capacity });
  }

  /** Records that a unit of the task goes to the executor; an executor not given at construction is ignored. */
  remember(taskId: number, executorId: string): void {
    const at = this.index.get(executorId);
    if (at === undefined) return;
    let executors = this.tasks.get(taskId);
    if (executors === undefined) this.tasks.set(taskId, (executors = new BitSet()));
    executors.set(at, 1);
  }

  /** The executors the task was streamed to, in construction order; none when it is unknown or forgotten. */
  of(taskId: number): string[] {
    return (
      this.tasks
        .get(taskId)
        ?.toArray()
        .map((at) => this.ids[at]!) ?? []
    );
  }
}
