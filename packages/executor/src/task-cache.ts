import type { Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { LRUCache } from 'lru-cache';

/**
 * What an executor needs of a task (content, expiry), read once from the store
 * and kept: a task's content never changes after creation.
 */
export class TaskCache {
  private readonly tasks: LRUCache<number, Promise<Task | undefined>>;

  constructor(
    private readonly store: TaskStore,
    capacity = 10_000,
  ) {
    this.tasks = new LRUCache({ max: capacity });
  }

  get(taskId: number): Promise<Task | undefined> {
    let task = this.tasks.get(taskId);
    if (task === undefined) {
      task = this.store.getTask(taskId);
      this.tasks.set(taskId, task);
      void task.then(
        (t) => t === undefined && this.tasks.delete(taskId),
        () => this.tasks.delete(taskId),
      );
    }
    return task;
  }
}
