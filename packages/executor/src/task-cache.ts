import type { Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';

/**
 * What an executor needs of a task (content, expiry), read once from the store
 * and kept: a task's content never changes after creation.
 */
export class TaskCache {
  private readonly tasks = new Map<number, Promise<Task | undefined>>();

  constructor(private readonly store: TaskStore, private readonly capacity = 10_000) {}

  get(taskId: number): Promise<Task | undefined> {
    let task = this.tasks.get(taskId);
    if (task === undefined) {
      if (this.tasks.size >= this.capacity) this.tasks.delete(this.tasks.keys().next().value!);
      task = this.store.getTask(taskId);
      this.tasks.set(taskId, task);
      void task.then((t) => t === undefined && this.tasks.delete(taskId), () => this.tasks.delete(taskId));
    }
    return task;
  }
}
