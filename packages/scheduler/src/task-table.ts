import type { TaskProgressRecord } from '@herald/core/progress';
import { PriorityQueue } from '@herald/core/schedule';
import { taskMachine, type ChannelHold, type ExecutionUnit, type Task } from '@herald/core/task';
import { StallWatch } from './stall-watch';

/**
 * Everything one scheduler keeps about one task it owns, in one record, so
 * that dropping the task (released to another member, fenced out, finished)
 * is deleting its entry: nothing of it can linger in a side collection.
 */
export interface TaskEntry {
  /** The task as this scheduler last wrote or read it; every write is fenced by its epoch. */
  task: Task;
  /** Holds an executor slot. Changed only by `TaskTable.takeSlot` and `release`, which keep the slot count. */
  active: boolean;
  /** When it took its slot, as a sequence number: of two equal candidates, preemption stops the one admitted first. */
  slotOrder: number;
  /** Waits for its send time (SCHEDULED). */
  scheduled: boolean;
  /**
   * Its units while they run here: set once they are started, dropped with
   * the slot. Undefined: none run here (not admitted yet, or paused or
   * stopped meanwhile), so a late progress report only settles its batch.
   */
  units: ExecutionUnit[] | undefined;
  /** When its delivered/offline totals were last written to the task row. */
  lastReportAt: number;
  /**
   * The epoch under which this scheduler halted it while its units were
   * streaming, with a halt that closes the epoch: executors then drop its
   * batches still on their way under it, so its units must never run under it
   * again. Resuming it claims the task first (epoch + 1).
   */
  closedEpoch: number | undefined;
  /** Its first confirmed batch was seen (or it had one when this scheduler got it). */
  reached: boolean;
  /** Its progress record (curve, waiting reason) as last read or written here; read from the store when first needed. */
  progress: TaskProgressRecord | undefined;
  /** When this scheduler last wrote its progress record. */
  progressWrittenAt: number;
  /**
   * Its dead letters by reason, counted here from the progress reports that
   * moved a checkpoint (started from the stored report's when first needed);
   * undefined: none counted by this scheduler yet (channel-report.ts).
   */
  deadLetters?: Record<string, number>;
  /** Whether the delivery channel holds its sending, as the last report of a batch said (null: sending). */
  channel?: ChannelHold | null;
  /** Each running unit's checkpoint and since when (scheduler.unitStallMs); cleared with the slot. */
  readonly unitStalls: StallWatch;
  /** Pre-processing's "checkpoint" (the epoch) and since when (4 x scheduler.unitStallMs); cleared with the slot. */
  readonly preprocessStall: StallWatch;
}

/** Delivered and offline recipients and finished units over a task's running units. */
export interface UnitTotals {
  delivered: number;
  offline: number;
  unitsDone: number;
}

export function unitTotals(units: readonly ExecutionUnit[] | undefined): UnitTotals {
  let delivered = 0;
  let offline = 0;
  let unitsDone = 0;
  for (const u of units ?? []) {
    delivered += u.delivered;
    offline += u.offline;
    if (u.state === 'DONE') unitsDone++;
  }
  return { delivered, offline, unitsDone };
}

/**
 * The tasks one scheduler owns, one `TaskEntry` each, with the two indexes
 * over them that must stay exact: the ready queue (task ids by schedule
 * score, read by admission) and the count of slots taken. Pure memory: no
 * I/O, no clock.
 */
export class TaskTable {
  private readonly entries = new Map<number, TaskEntry>();
  private readonly ready = new PriorityQueue<number>();
  private slotsTaken = 0;
  private slotsGiven = 0;

  /** @param unitStallMs scheduler.unitStallMs: a unit's stall period; pre-processing gets four. */
  constructor(private readonly unitStallMs: number) {}

  get(taskId: number): TaskEntry | undefined {
    return this.entries.get(taskId);
  }

  /** The task as last held, or undefined when this scheduler does not own it. */
  task(taskId: number): Task | undefined {
    return this.entries.get(taskId)?.task;
  }

  has(taskId: number): boolean {
    return this.entries.has(taskId);
  }

  /** Every entry, as a copy: callers may forget tasks while they walk it. */
  all(): TaskEntry[] {
    return [...this.entries.values()];
  }

  /** Owned tasks. */
  get size(): number {
    return this.entries.size;
  }

  /** Tasks holding an executor slot. */
  get active(): number {
    return this.slotsTaken;
  }

  /** Tasks in the ready queue. */
  get queued(): number {
    return this.ready.size;
  }

  /** Tasks waiting for their send time. */
  get scheduled(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.scheduled) count++;
    return count;
  }

  /** Holds a task as just claimed, written or read under its epoch; its entry is made the first time. */
  hold(task: Task): TaskEntry {
    const entry = this.entries.get(task.id);
    if (entry !== undefined) {
      entry.task = task;
      return entry;
    }
    const fresh: TaskEntry = {
      task,
      active: false,
      slotOrder: 0,
      scheduled: false,
      units: undefined,
      lastReportAt: 0,
      closedEpoch: undefined,
      reached: false,
      progress: undefined,
      progressWrittenAt: 0,
      unitStalls: new StallWatch(this.unitStallMs),
      preprocessStall: new StallWatch(this.unitStallMs * 4),
    };
    this.entries.set(task.id, fresh);
    return fresh;
  }

  /** Drops a task and all that this scheduler kept about it: its entry, its place in the queue, its slot. */
  forget(taskId: number): void {
    const entry = this.entries.get(taskId);
    if (entry?.active) this.slotsTaken--;
    this.entries.delete(taskId);
    this.dequeue(taskId);
  }

  takeSlot(entry: TaskEntry): void {
    if (entry.active) return;
    entry.active = true;
    entry.slotOrder = ++this.slotsGiven;
    this.slotsTaken++;
  }

  /**
   * Frees the task's slot and drops its running units and their stall clocks;
   * the task stays owned (it may be resumed), unless it is finished.
   */
  release(taskId: number): void {
    const entry = this.entries.get(taskId);
    if (entry === undefined) return;
    if (entry.active) this.slotsTaken--;
    entry.active = false;
    entry.units = undefined;
    entry.unitStalls.forget(taskId);
    entry.preprocessStall.forget(taskId);
    if (taskMachine.isTerminal(entry.task.state)) this.forget(taskId);
  }

  /** Puts the task in the ready queue at `score`, or moves it there. */
  enqueue(taskId: number, score: number): void {
    this.dequeue(taskId);
    this.ready.push(taskId, score);
  }

  dequeue(taskId: number): void {
    this.ready.remove((id) => id === taskId);
  }

  /** The id at the head of the ready queue. */
  peekReady(): number | undefined {
    return this.ready.peek();
  }

  popReady(): number | undefined {
    return this.ready.pop();
  }

  /** The ready queue's task ids, best first. */
  readyOrder(): number[] {
    return this.ready.ordered();
  }

  /** Scores the ready queue again (aging moves scores as time passes). */
  rekey(scoreOf: (task: Task) => number): void {
    this.ready.rekey((id) => {
      const task = this.task(id);
      return task === undefined ? 0 : scoreOf(task);
    });
  }
}
