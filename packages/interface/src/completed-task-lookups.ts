import { OpenTaskFiles, type ListRepository } from '@herald/audience';
import type { TaskStore } from '@herald/core/ports';
import { filteredListRuns, type ExecutionUnit, type Task } from '@herald/core/task';

/** Completed tasks whose lookup state is kept: per task its units, two open files and, per sorted run, at most 4,095 probes and 128 blocks of 512 cells (docs/recipient-truth.md). */
export const COMPLETED_TASKS_KEPT = 8;

/** What every lookup of one completed task reads alike: its units and its open list files. */
export interface CompletedTaskState {
  units: readonly ExecutionUnit[];
  files: OpenTaskFiles;
}

interface Entry {
  state: Promise<CompletedTaskState>;
  users: number;
  evicted: boolean;
}

/**
 * The part of a per-recipient lookup (docs/recipient-truth.md, "What a
 * lookup keeps") that cannot change once its task is COMPLETED, kept for the
 * COMPLETED_TASKS_KEPT tasks looked up last: the units (every one DONE: no
 * checkpoint or executor moves again) and the filtered list and removed sets
 * kept open (written once, before the task sent anything). Not the task row
 * (read each time: its state is what says the rest is final), nor any
 * delivery record or login outcome (a purge removes them, a login after the
 * expiry adds one, and a host that stops answering must make its part
 * unknown). A task in any other state is never kept: a CANCELLED one's
 * in-flight batches may still move a checkpoint.
 */
export class CompletedTaskLookups {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly kept = COMPLETED_TASKS_KEPT) {}

  /**
   * `task`'s kept state (opened on its first lookup) and the release to call
   * once the lookup is done, or undefined for a task not COMPLETED or not
   * filtered. An evicted task's files close when its last lookup releases.
   */
  async acquire(
    task: Task,
    deps: { store: Pick<TaskStore, 'listUnits'>; lists: ListRepository },
  ): Promise<{ state: CompletedTaskState; release: () => void } | undefined> {
    if (task.state !== 'COMPLETED' || task.filteredListId === null) return undefined;
    let entry = this.entries.get(task.id);
    // Most recently used last: the first key is the one to evict.
    if (entry !== undefined) this.entries.delete(task.id);
    entry ??= { state: openState(task, deps), users: 0, evicted: false };
    this.keep(task.id, entry);
    entry.users++;
    const done = entry;
    const release = () => {
      done.users--;
      if (done.evicted && done.users === 0) closeWhenOpen(done);
    };
    try {
      return { state: await entry.state, release };
    } catch (error) {
      // Not kept: the next lookup tries again (a file briefly unreadable must not stick).
      if (this.entries.get(task.id) === entry) this.entries.delete(task.id);
      release();
      throw error;
    }
  }

  /** Closes every kept file (the process is stopping: no lookup is running). */
  async close(): Promise<void> {
    const states = [...this.entries.values()].map((e) => e.state.catch(() => undefined));
    this.entries.clear();
    const opened = (await Promise.all(states)).filter((s) => s !== undefined);
    await Promise.all(opened.map((s) => s.files.close()));
  }

  private keep(taskId: number, entry: Entry): void {
    this.entries.set(taskId, entry);
    if (this.entries.size <= this.kept) return;
    const [oldestId, oldest] = this.entries.entries().next().value!;
    this.entries.delete(oldestId);
    oldest.evicted = true;
    if (oldest.users === 0) closeWhenOpen(oldest);
  }
}

function closeWhenOpen(entry: Entry): void {
  void entry.state.then((s) => s.files.close()).catch(() => undefined);
}

async function openState(
  task: Task,
  deps: { store: Pick<TaskStore, 'listUnits'>; lists: ListRepository },
): Promise<CompletedTaskState> {
  const units = await deps.store.listUnits(task.id);
  const files = await OpenTaskFiles.open(deps.lists.pathOf(task.filteredListId!), filteredListRuns(task));
  return { units, files };
}
