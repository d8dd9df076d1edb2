import type { Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { newTask } from '@herald/testing';
import { TaskCache } from './task-cache';

/** A task store that only answers getTask, for the ids given, and counts the reads. */
function fakeStore(ids: number[]): TaskStore & { reads: number[] } {
  const reads: number[] = [];
  const store = {
    reads,
    async getTask(id: number) {
      reads.push(id);
      return ids.includes(id) ? ({ ...newTask(), id } as unknown as Task) : undefined;
    },
  };
  return store as unknown as TaskStore & { reads: number[] };
}

describe('TaskCache', () => {
  it('reads a task from the store once and then serves it from memory', async () => {
    const store = fakeStore([1]);
    const cache = new TaskCache(store);
    const first = await cache.get(1);
    const second = await cache.get(1);
    expect(first?.id).toBe(1);
    expect(second).toBe(first);
    expect(store.reads).toEqual([1]);
  });

  it('shares one read between concurrent callers', async () => {
    const store = fakeStore([1]);
    const cache = new TaskCache(store);
    const [a, b] = await Promise.all([cache.get(1), cache.get(1)]);
    expect(a).toBe(b);
    expect(store.reads).toEqual([1]);
  });

  it('evicts the oldest entry beyond its capacity', async () => {
    const store = fakeStore([1, 2, 3]);
    const cache = new TaskCache(store, 2);
    await cache.get(1);
    await cache.get(2);
    await cache.get(3); // evicts 1
    await cache.get(2);
    await cache.get(3);
    expect(store.reads).toEqual([1, 2, 3]);
    await cache.get(1); // read again, evicting 2
    expect(store.reads).toEqual([1, 2, 3, 1]);
    await cache.get(3);
    await cache.get(2);
    expect(store.reads).toEqual([1, 2, 3, 1, 2]);
  });

  it('does not cache a missing task: a later read may find it', async () => {
    const store = fakeStore([]);
    const cache = new TaskCache(store);
    expect(await cache.get(7)).toBeUndefined();
    expect(await cache.get(7)).toBeUndefined();
    expect(store.reads).toEqual([7, 7]);
  });

  it('does not cache a failed read', async () => {
    let fail = true;
    const store = {
      async getTask(id: number) {
        if (fail) throw new Error('store unavailable');
        return { ...newTask(), id } as unknown as Task;
      },
    } as unknown as TaskStore;
    const cache = new TaskCache(store);
    await expect(cache.get(1)).rejects.toThrow('store unavailable');
    fail = false;
    expect((await cache.get(1))?.id).toBe(1);
  });
});
