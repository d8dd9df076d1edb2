import type { Delivery, DeliveryGateway, Task, TaskStore } from '@herald/core';
import { LevelOfflineStore } from '@herald/store-level';
import { makeTempDir, newTask, type TempDir } from '@herald/testing';
import { LoginDelivery } from './login-delivery';
import { TaskCache } from './task-cache';

const NOW = 1_700_000_000_000;
const UIN = 42;

/** A gateway that records copies of what it accepted; `failOnCall` makes that call (1-based) throw. */
class RecordingGateway implements DeliveryGateway {
  readonly accepted: { taskId: number; uins: number[]; body: string; atLogin: boolean }[] = [];
  calls = 0;
  failOnCall: number | undefined;
  async deliver(delivery: Delivery): Promise<void> {
    this.calls++;
    if (this.calls === this.failOnCall) throw new Error('push channel down');
    this.accepted.push({ taskId: delivery.taskId, uins: [...delivery.uins], body: delivery.content.body, atLogin: delivery.atLogin });
  }
  async close(): Promise<void> {}
}

let dir: TempDir;
let offline: LevelOfflineStore;
let gateway: RecordingGateway;
let now: number;
let tasks: Map<number, Task>;
let login: LoginDelivery;

function addTask(id: number, expiresAt = NOW + 60_000): Task {
  const task = { ...newTask({ content: { body: `content of ${id}` }, expiresAt }), id } as unknown as Task;
  tasks.set(id, task);
  return task;
}

beforeEach(async () => {
  dir = await makeTempDir('herald-login-');
  offline = await LevelOfflineStore.open(dir.path, { rangeBits: 8 });
  gateway = new RecordingGateway();
  now = NOW;
  tasks = new Map();
  const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
  login = new LoginDelivery(offline, gateway, new TaskCache(store), { now: () => now });
});
afterEach(async () => {
  await offline.close();
  await dir.remove();
});

describe('LoginDelivery', () => {
  it("delivers the user's entries oldest task first, at login, and removes them", async () => {
    for (const id of [3, 1, 2]) {
      const task = addTask(id);
      await offline.append(id, task.expiresAt, Uint32Array.of(7, UIN, 300));
    }
    expect(await login.deliver(UIN)).toEqual({ delivered: 3, expired: 0 });
    expect(gateway.accepted).toEqual([
      { taskId: 1, uins: [UIN], body: 'content of 1', atLogin: true },
      { taskId: 2, uins: [UIN], body: 'content of 2', atLogin: true },
      { taskId: 3, uins: [UIN], body: 'content of 3', atLogin: true },
    ]);
    expect(await offline.pending(UIN)).toEqual([]);
    // Other users' entries are untouched.
    expect((await offline.pending(7)).map((e) => e.taskId)).toEqual([1, 2, 3]);
    expect((await offline.pending(300)).map((e) => e.taskId)).toEqual([1, 2, 3]);
  });

  it('delivers nothing to a user without entries', async () => {
    addTask(1);
    await offline.append(1, NOW + 1000, Uint32Array.of(UIN + 1));
    expect(await login.deliver(UIN)).toEqual({ delivered: 0, expired: 0 });
    expect(gateway.calls).toBe(0);
  });

  it('drops expired entries without delivering them, and counts them', async () => {
    addTask(1, NOW - 1);
    addTask(2, NOW); // expires exactly now: dropped
    addTask(3, NOW + 1);
    for (const id of [1, 2, 3]) await offline.append(id, tasks.get(id)!.expiresAt, Uint32Array.of(UIN));
    expect(await login.deliver(UIN)).toEqual({ delivered: 1, expired: 2 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([3]);
    expect(await offline.pending(UIN)).toEqual([]);
  });

  it('judges expiry by the injected clock', async () => {
    addTask(1, NOW + 500);
    await offline.append(1, NOW + 500, Uint32Array.of(UIN));
    now = NOW + 500;
    expect(await login.deliver(UIN)).toEqual({ delivered: 0, expired: 1 });
    expect(gateway.calls).toBe(0);
  });

  it('drops an entry whose task the store does not know', async () => {
    addTask(2);
    await offline.append(1, NOW + 60_000, Uint32Array.of(UIN)); // task 1 is unknown
    await offline.append(2, NOW + 60_000, Uint32Array.of(UIN));
    expect(await login.deliver(UIN)).toEqual({ delivered: 1, expired: 1 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([2]);
    expect(await offline.pending(UIN)).toEqual([]);
  });

  it('keeps an entry whose delivery failed, and delivers it at the next login: nothing is lost', async () => {
    for (const id of [1, 2, 3]) await offline.append(id, addTask(id).expiresAt, Uint32Array.of(UIN));
    gateway.failOnCall = 2;

    await expect(login.deliver(UIN)).rejects.toThrow('push channel down');
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([1]);
    // The first was acknowledged; the failed one and the one after it are still pending.
    expect((await offline.pending(UIN)).map((e) => e.taskId)).toEqual([2, 3]);

    expect(await login.deliver(UIN)).toEqual({ delivered: 2, expired: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([1, 2, 3]);
    expect(await offline.pending(UIN)).toEqual([]);
  });
});
