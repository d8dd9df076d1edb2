import { TypedArrayBitmap } from '@herald/core/presence';
import type { Delivery, DeliveryGateway, OfflineStore, TaskStore } from '@herald/core/ports';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { newTask, waitFor } from '@herald/testing';
import type { UnitBatch, UnitProgressMessage } from '@herald/transport';
import { startExecutor } from './executor';
import { openExecutorLinks } from './executor-links.test-util';
import { TaskCache } from './task-cache';

/*
 * An executor that comes back after its units moved (docs/operations.md,
 * "An executor lost"): the batches still queued for it are dropped before
 * delivery, neither delivered, queued offline, nor reported; the units the
 * store still names it for go on as before.
 */
describe('executor: batches of a unit moved to another executor', () => {
  it('drops them unreported and delivers the units still its own', async () => {
    const task = { ...newTask({ content: { body: 'x' } }), id: 5, epoch: 2 } as unknown as Task;
    const owners = new Map([
      [0, 'executor-2'], // moved while executor-1 was silent
      [1, 'executor-1'],
    ]);
    const store = {
      getTask: async () => task,
      listUnits: async () => [...owners].map(([unitNo, executorId]) => ({ unitNo, executorId }) as ExecutionUnit),
    } as unknown as TaskStore;
    const delivered: number[] = [];
    const gateway: DeliveryGateway = {
      deliver: async (d: Delivery) => void delivered.push(...d.uins),
      close: async () => undefined,
    };
    const queued: number[] = [];
    const offline = {
      append: async (_t: number, _e: number, uins: Uint32Array) => void queued.push(...uins),
    } as unknown as OfflineStore;
    const online = new TypedArrayBitmap(64);
    for (const uin of [1, 3, 11, 13]) online.setOnline(uin, true);
    const progress: UnitProgressMessage[] = [];
    const links = await openExecutorLinks('executor-moved', (p) => progress.push(p));
    const executor = startExecutor({
      id: 'executor-1',
      inbox: links.inbox,
      toScheduler: links.toScheduler,
      tasks: new TaskCache(store),
      online,
      gateway,
      offline,
      assignments: store,
    });

    const batch = (unitNo: number, offset: number, uins: number[]): UnitBatch => ({
      kind: 'unit.batch',
      taskId: 5,
      epoch: 2,
      unitNo,
      offset,
      last: false,
      uins: Uint32Array.from(uins),
    });
    await links.dispatcher.send(batch(0, 0, [1, 2]));
    await links.dispatcher.send(batch(0, 2, [3, 4]));
    await links.dispatcher.send(batch(1, 10, [11, 12]));
    await links.dispatcher.send(batch(1, 12, [13, 14]));
    await waitFor(() => progress.length === 2, { message: 'unit 1 reported' });
    await links.close(executor);

    expect(progress.map((p) => [p.unitNo, p.from, p.to])).toEqual([
      [1, 10, 12],
      [1, 12, 14],
    ]);
    expect([delivered, queued]).toEqual([
      [11, 13],
      [12, 14],
    ]);
  });
});
