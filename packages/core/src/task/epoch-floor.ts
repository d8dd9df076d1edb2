/**
 * The highest owner epoch seen per task: the send path's fence (docs/apta.md,
 * "Fencing"). A scheduler raises a task's epoch when it claims the task, and
 * every message it sends for the task carries that epoch, so a message below
 * the highest epoch seen comes from a deposed owner.
 *
 * Bounded: past `capacity` tasks the least recently seen one is forgotten.
 * A stale message for a forgotten task then passes this check; the
 * dispatcher's check is backed by the executor's, which also raises its floor
 * to the task's stored epoch.
 */
// A Map in insertion order, not lru-cache: core depends on no package.
export class EpochFloor {
  private readonly epochs = new Map<number, number>();

  constructor(private readonly capacity = 65_536) {}

  /** The highest epoch seen for the task, if it is remembered. */
  get(taskId: number): number | undefined {
    return this.epochs.get(taskId);
  }

  /**
   * Records a message's epoch. Returns false, recording nothing, when the
   * epoch is below the highest seen for the task (a stale owner's message).
   */
  admit(taskId: number, epoch: number): boolean {
    const floor = this.epochs.get(taskId);
    if (floor !== undefined && epoch < floor) return false;
    // Delete then set: a Map iterates in insertion order, so the first key is the least recently seen.
    this.epochs.delete(taskId);
    this.epochs.set(taskId, floor === undefined ? epoch : Math.max(floor, epoch));
    if (this.epochs.size > this.capacity) this.epochs.delete(this.epochs.keys().next().value!);
    return true;
  }

  /** Records an epoch that is known to be current (e.g. read from the store) and returns the highest for the task. */
  raise(taskId: number, epoch: number): number {
    this.admit(taskId, epoch);
    return this.epochs.get(taskId)!;
  }

  forget(taskId: number): void {
    this.epochs.delete(taskId);
  }

  get size(): number {
    return this.epochs.size;
  }
}
