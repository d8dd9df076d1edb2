/**
 * Notices execution units that stopped moving. A unit is sent once as a
 * unit.run and then advances only by the executor's progress reports; if the
 * dispatcher streaming it or the executor receiving it dies or restarts, or
 * the unit.run is lost with a process's queue, nothing ever tells the
 * scheduler, and the task would wait for good. So the scheduler watches each
 * running unit's checkpoint and runs the unit again from it when it has not
 * moved for `stallMs` (scheduler.unitStallMs).
 *
 * A unit whose executor moved another unit of the task within `stallMs` is
 * waiting its turn, not lost: every unit streamed to an executor shares its
 * channel's pace, and through a throttled channel (20,000 recipients/s for
 * 490 units, say) each unit gets a batch only every several seconds. Running
 * such a unit again would only put a second copy of its batches in the same
 * queue, slowing every unit further, until the re-runs fed on themselves
 * (5 x 10^6 recipients at 20,000/s made 4,000 re-runs in 6 minutes). So it
 * is run again only once it has not moved for `queuedStallMs` (10 x stallMs
 * by default), which bounds how long a lost stream beside live ones waits.
 * A unit whose executor reported a batch past its checkpoint (noteGap: a
 * batch between them was lost, with a restarted executor's prefetch, say) is
 * not waiting its turn: it gets the short period whatever its executor does.
 * An executor whose channel holds sending (a 429's Retry-After, an open
 * breaker) moves nothing, but says so every few seconds (noteAlive): its
 * units wait their turn too.
 *
 * Running a unit again is safe even when the first run was only slow: the
 * dispatcher replaces a unit's stream at the same epoch, the executor reports
 * a batch it already confirmed without delivering it again, and a report
 * whose start is not the stored checkpoint is ignored.
 */
export class StallWatch {
  /** Per "taskId/unitNo": the checkpoint last seen and since when. */
  private readonly seen = new Map<string, { checkpoint: number; since: number }>();
  /** Per executor: when a unit on it was last seen to move. */
  private readonly executorMovedAt = new Map<string, number>();
  /** "taskId/unitNo" of units reported past their checkpoint since it last moved. */
  private readonly gapped = new Set<string>();

  constructor(
    private readonly stallMs: number,
    private readonly queuedStallMs = stallMs * QUEUED_STALL_FACTOR,
  ) {}

  /**
   * Notes one unfinished unit's checkpoint now, and its executor as moving
   * when the checkpoint moved since the last look. Looking at every running
   * unit before asking isStalled of any makes the answer independent of the
   * units' order.
   */
  observe(taskId: number, unitNo: number, checkpoint: number, now: number, executorId?: string): void {
    this.entryOf(taskId, unitNo, checkpoint, now, executorId);
  }

  /**
   * Looks at one unfinished unit now. True when its checkpoint has not moved
   * for `stallMs` (for `queuedStallMs` while its executor moves other units);
   * its clock restarts then, so a re-run gets a whole period to show progress
   * before the next one.
   */
  isStalled(taskId: number, unitNo: number, checkpoint: number, now: number, executorId?: string): boolean {
    const last = this.entryOf(taskId, unitNo, checkpoint, now, executorId);
    const still = now - last.since;
    if (still < this.stallMs) return false;
    const queued = executorId !== undefined && !this.gapped.has(keyOf(taskId, unitNo));
    if (still < this.queuedStallMs && queued && this.movedWithinStall(executorId, now)) return false;
    last.since = now;
    return true;
  }

  /**
   * The executor said the channel holds a batch of the task in hand (a hold
   * report, repeated while the hold lasts): it is alive and its units wait
   * for the channel, as if it had moved one.
   */
  noteAlive(executorId: string, now: number): void {
    this.executorMovedAt.set(executorId, now);
  }

  /** A batch of the unit was reported past its checkpoint: one between them never will be (until it is run again). */
  noteGap(taskId: number, unitNo: number): void {
    this.gapped.add(keyOf(taskId, unitNo));
  }

  /** Forgets every unit of a task (it finished, stopped or moved to another scheduler). */
  forget(taskId: number): void {
    const prefix = `${taskId}/`;
    for (const key of this.seen.keys()) if (key.startsWith(prefix)) this.seen.delete(key);
    for (const key of this.gapped) if (key.startsWith(prefix)) this.gapped.delete(key);
    // One watch serves one task (TaskEntry): its executors' moves go with its units.
    this.executorMovedAt.clear();
  }

  get size(): number {
    return this.seen.size;
  }

  private entryOf(taskId: number, unitNo: number, checkpoint: number, now: number, executorId?: string) {
    const key = keyOf(taskId, unitNo);
    const last = this.seen.get(key);
    if (last !== undefined && last.checkpoint === checkpoint) return last;
    this.gapped.delete(key);
    // A first sight is not a move: a unit just assigned says nothing yet of its executor.
    if (last !== undefined && executorId !== undefined) this.executorMovedAt.set(executorId, now);
    const fresh = { checkpoint, since: now };
    this.seen.set(key, fresh);
    return fresh;
  }

  private movedWithinStall(executorId: string, now: number): boolean {
    const moved = this.executorMovedAt.get(executorId);
    return moved !== undefined && now - moved < this.stallMs;
  }
}

const keyOf = (taskId: number, unitNo: number) => `${taskId}/${unitNo}`;

/** How many stall periods a unit waits while its executor moves the task's other units (StallWatch). */
export const QUEUED_STALL_FACTOR = 10;
