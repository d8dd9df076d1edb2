/**
 * Notices execution units that stopped moving. A unit is sent once as a
 * unit.run and then advances only by the executor's progress reports; if the
 * dispatcher streaming it or the executor receiving it dies or restarts, or
 * the unit.run is lost with a process's queue, nothing ever tells the
 * scheduler, and the task would wait for good. So the scheduler watches each
 * running unit's checkpoint and runs the unit again from it when it has not
 * moved for `stallMs` (scheduler.unitStallMs).
 *
 * Running a unit again is safe even when the first run was only slow: the
 * dispatcher replaces a unit's stream at the same epoch, the executor reports
 * a batch it already confirmed without delivering it again, and a report
 * whose start is not the stored checkpoint is ignored.
 */
export class StallWatch {
  /** Per "taskId/unitNo": the checkpoint last seen and since when. */
  private readonly seen = new Map<string, { checkpoint: number; since: number }>();

  constructor(private readonly stallMs: number) {}

  /**
   * Looks at one unfinished unit now. True when its checkpoint has not moved
   * for `stallMs`; its clock restarts then, so a re-run gets a whole `stallMs`
   * to show progress before the next one.
   */
  isStalled(taskId: number, unitNo: number, checkpoint: number, now: number): boolean {
    const key = `${taskId}/${unitNo}`;
    const last = this.seen.get(key);
    if (last === undefined || last.checkpoint !== checkpoint) {
      this.seen.set(key, { checkpoint, since: now });
      return false;
    }
    if (now - last.since < this.stallMs) return false;
    last.since = now;
    return true;
  }

  /** Forgets every unit of a task (it finished, stopped or moved to another scheduler). */
  forget(taskId: number): void {
    const prefix = `${taskId}/`;
    for (const key of this.seen.keys()) if (key.startsWith(prefix)) this.seen.delete(key);
  }

  get size(): number {
    return this.seen.size;
  }
}
