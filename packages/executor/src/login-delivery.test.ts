import { compileFrequencyPolicy, dayOf, slotReleaseTimes } from '@herald/core/frequency';
import type { Delivery, DeliveryGateway, DeliveryResult, FrequencyCounter, TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { LevelDeliveryRecordLog, LevelFrequencyCounter, LevelOfflineStore } from '@herald/store-level';
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
  /** Tasks whose delivery the channel answers with the user rejected for good. */
  readonly rejectFor = new Set<number>();
  async deliver(delivery: Delivery): Promise<DeliveryResult | void> {
    this.calls++;
    if (this.calls === this.failOnCall) throw new Error('push channel down');
    if (this.rejectFor.has(delivery.taskId))
      return { rejected: [...delivery.uins].map((uin) => ({ uin, reason: 'unregistered' })) };
    this.accepted.push({
      taskId: delivery.taskId,
      uins: [...delivery.uins],
      body: delivery.content.body,
      atLogin: delivery.atLogin,
    });
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
    expect(await login.deliver(UIN)).toEqual({ delivered: 3, expired: 0, overFrequency: 0, held: 0 });
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

  it('removes what a walk delivered and dropped in one acknowledgement, after the last delivery', async () => {
    addTask(1);
    addTask(2, NOW - 1); // expired: dropped
    addTask(3);
    for (const id of [1, 2, 3]) await offline.append(id, tasks.get(id)!.expiresAt, Uint32Array.of(UIN));
    const acknowledged: { uin: number; taskIds: number[]; deliveredBefore: number }[] = [];
    const acknowledge = offline.acknowledge.bind(offline);
    offline.acknowledge = async (uin, taskIds) => {
      acknowledged.push({ uin, taskIds: [...taskIds], deliveredBefore: gateway.accepted.length });
      return acknowledge(uin, taskIds);
    };
    expect(await login.deliver(UIN)).toEqual({ delivered: 2, expired: 1, overFrequency: 0, held: 0 });
    expect(acknowledged).toEqual([{ uin: UIN, taskIds: [1, 2, 3], deliveredBefore: 2 }]);
    expect(await offline.pending(UIN)).toEqual([]);
  });

  it('settles an entry the channel rejects for good (a dead letter) without counting it delivered', async () => {
    for (const id of [1, 2]) await offline.append(id, addTask(id).expiresAt, Uint32Array.of(UIN));
    gateway.rejectFor.add(1);
    expect(await login.deliver(UIN)).toEqual({ delivered: 1, expired: 0, overFrequency: 0, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([2]);
    expect(await offline.pending(UIN)).toEqual([]);
  });

  it('records what became of each settled entry before removing it', async () => {
    const dir2 = await makeTempDir('herald-login-records-');
    const records = await LevelDeliveryRecordLog.open(dir2.path);
    try {
      const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
      const recording = new LoginDelivery(
        offline,
        gateway,
        new TaskCache(store),
        { now: () => now },
        undefined,
        undefined,
        records,
      );
      addTask(1);
      addTask(2, NOW - 1);
      for (const id of [1, 2]) await offline.append(id, tasks.get(id)!.expiresAt, Uint32Array.of(UIN));
      const acknowledge = offline.acknowledge.bind(offline);
      const seenAtAcknowledge: unknown[] = [];
      offline.acknowledge = async (uin, taskIds) => {
        seenAtAcknowledge.push(await records.loginOf(1, uin));
        return acknowledge(uin, taskIds);
      };
      expect(await recording.deliver(UIN)).toEqual({ delivered: 1, expired: 1, overFrequency: 0, held: 0 });
      expect(seenAtAcknowledge).toEqual([{ taskId: 1, uin: UIN, outcome: 'delivered', at: NOW }]);
      expect(await records.loginOf(2, UIN)).toEqual({ taskId: 2, uin: UIN, outcome: 'expired', at: NOW });
    } finally {
      await records.close();
      await dir2.remove();
    }
  });

  it('delivers nothing to a user without entries', async () => {
    addTask(1);
    await offline.append(1, NOW + 1000, Uint32Array.of(UIN + 1));
    expect(await login.deliver(UIN)).toEqual({ delivered: 0, expired: 0, overFrequency: 0, held: 0 });
    expect(gateway.calls).toBe(0);
  });

  it('drops expired entries without delivering them, and counts them', async () => {
    addTask(1, NOW - 1);
    addTask(2, NOW); // expires exactly now: dropped
    addTask(3, NOW + 1);
    for (const id of [1, 2, 3]) await offline.append(id, tasks.get(id)!.expiresAt, Uint32Array.of(UIN));
    expect(await login.deliver(UIN)).toEqual({ delivered: 1, expired: 2, overFrequency: 0, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([3]);
    expect(await offline.pending(UIN)).toEqual([]);
  });

  it('judges expiry by the injected clock', async () => {
    addTask(1, NOW + 500);
    await offline.append(1, NOW + 500, Uint32Array.of(UIN));
    now = NOW + 500;
    expect(await login.deliver(UIN)).toEqual({ delivered: 0, expired: 1, overFrequency: 0, held: 0 });
    expect(gateway.calls).toBe(0);
  });

  it('drops an entry whose task the store does not know', async () => {
    addTask(2);
    await offline.append(1, NOW + 60_000, Uint32Array.of(UIN)); // task 1 is unknown
    await offline.append(2, NOW + 60_000, Uint32Array.of(UIN));
    expect(await login.deliver(UIN)).toEqual({ delivered: 1, expired: 1, overFrequency: 0, held: 0 });
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

    expect(await login.deliver(UIN)).toEqual({ delivered: 2, expired: 0, overFrequency: 0, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([1, 2, 3]);
    expect(await offline.pending(UIN)).toEqual([]);
  });
});

describe('LoginDelivery with frequency control', () => {
  const H = 3_600_000;
  const policy = compileFrequencyPolicy(); // 00-06, 06-12, 12-15, 15-18, 18-21, 21-24: one slot each
  const MIDNIGHT = Date.UTC(2024, 2, 10);
  const D = dayOf(policy, MIDNIGHT);
  /** The last ms of a competition window: its slot is released for every user, the next one for nobody. */
  const endOfWindow = (hour: number) => MIDNIGHT + hour * H - 1;

  let counterDir: TempDir;
  let counter: LevelFrequencyCounter;
  let reads: number;
  let checked: LoginDelivery;
  beforeEach(async () => {
    counterDir = await makeTempDir('herald-login-frequency-');
    counter = await LevelFrequencyCounter.open(counterDir.path);
    reads = 0;
    const counting: FrequencyCounter = {
      used: (uins, day) => (reads++, counter.used(uins, day)),
      consume: (uses) => counter.consume(uses),
      close: async () => undefined,
    };
    const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
    checked = new LoginDelivery(
      offline,
      gateway,
      new TaskCache(store),
      { now: () => now },
      { policy, counter: counting },
    );
  });
  afterEach(async () => {
    await counter.close();
    await counterDir.remove();
  });

  const used = async (day: number) => (await counter.used(Uint32Array.of(UIN), day))[0];
  const pend = async (...ids: number[]) => {
    for (const id of ids) await offline.append(id, addTask(id, MIDNIGHT + 72 * H).expiresAt, Uint32Array.of(UIN));
  };

  it('delivers oldest first while the user has released, unused slots today, counts each, and drops the rest as over frequency', async () => {
    now = endOfWindow(15); // three slots released
    await counter.consume([{ taskId: 90, day: D, uins: Uint32Array.of(UIN) }]); // one used online today
    await pend(4, 1, 3, 2);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 2, expired: 0, overFrequency: 2, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([1, 2]);
    expect(await used(D)).toBe(3);
    expect(await offline.pending(UIN)).toEqual([]); // dropped, not kept for later
    expect(reads).toBe(1); // one read per walk
  });

  it('gives no slot to an expired entry', async () => {
    now = endOfWindow(6); // one slot released
    addTask(1, now);
    await offline.append(1, now, Uint32Array.of(UIN));
    await pend(2, 3);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 1, expired: 1, overFrequency: 1, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([2]);
  });

  it('counts against the day of the login, not the day the task was sent', async () => {
    for (let taskId = 80; taskId < 86; taskId++)
      await counter.consume([{ taskId, day: D - 1, uins: Uint32Array.of(UIN) }]); // yesterday: all six
    now = endOfWindow(6);
    await pend(1, 2);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 1, expired: 0, overFrequency: 1, held: 0 });
    expect(await used(D)).toBe(1);
    expect(await used(D - 1)).toBe(6);
  });

  it("delivers nothing before the user's first slot of the day is released, and one entry from that moment", async () => {
    const firstRelease = slotReleaseTimes(policy, UIN, D)[0]!; // 03:33:25.466 for user 42 (pinned in core's release tests)
    now = MIDNIGHT;
    await pend(1);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 0, expired: 0, overFrequency: 1, held: 0 });
    now = firstRelease - 1;
    await pend(2);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 0, expired: 0, overFrequency: 1, held: 0 });
    now = firstRelease;
    await pend(3, 4);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 1, expired: 0, overFrequency: 1, held: 0 });
    expect(gateway.accepted.map((d) => d.taskId)).toEqual([3]);
  });

  it('reads no count for a user with nothing live to deliver', async () => {
    now = endOfWindow(12);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 0, expired: 0, overFrequency: 0, held: 0 });
    addTask(1, now - 1);
    await offline.append(1, now - 1, Uint32Array.of(UIN));
    expect(await checked.deliver(UIN)).toEqual({ delivered: 0, expired: 1, overFrequency: 0, held: 0 });
    expect(reads).toBe(0);
  });

  it('neither counts nor removes an entry whose delivery failed; the next login delivers and counts it', async () => {
    now = endOfWindow(18);
    await pend(1, 2);
    gateway.failOnCall = 1;
    await expect(checked.deliver(UIN)).rejects.toThrow('push channel down');
    expect(await used(D)).toBe(0);
    expect((await offline.pending(UIN)).map((e) => e.taskId)).toEqual([1, 2]);
    expect(await checked.deliver(UIN)).toEqual({ delivered: 2, expired: 0, overFrequency: 0, held: 0 });
    expect(await used(D)).toBe(2);
  });
});
