import type { ExecutionUnit, NewTask } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { coordinatorRecorder } from './progress-recorder';

describe('coordinatorRecorder', () => {
  let dir: TempDir;
  let store: LevelTaskStore;
  const now = 1_800_000_000_000;
  const newTask: NewTask = {
    accountId: 'a',
    listId: 'l_1',
    content: { body: 'x' },
    contentCrc: 1,
    priority: 'normal',
    sendAt: now,
    expiresAt: now + 1e6,
    listCount: 20,
  };

  beforeEach(async () => {
    dir = await makeTempDir('herald-recorder-');
    store = await LevelTaskStore.open(dir.path);
  });

  afterEach(async () => {
    await store.close();
    await dir.remove();
  });

  async function sendingUnit() {
    const created = await store.createTask(newTask, now);
    const task = await store.claimTask(created.id, 's1', now);
    const [unit] = await store.putUnits(
      task.id,
      { epoch: task.epoch },
      [{ unitNo: 0, start: 0, end: 20, executorId: 'e1' }],
      now,
    );
    return { task, unit: unit! };
  }

  it('records batches in the coordinator, in order, and settles them into the store', async () => {
    const coordinator = await createLocalCoordinatorCluster().connect();
    const recorder = coordinatorRecorder(store, coordinator);
    const { task, unit } = await sendingUnit();
    let current: ExecutionUnit = await recorder.record(task, unit, { from: 0, to: 5, delivered: 2, offline: 3 }, now);
    current = await recorder.record(task, current, { from: 0, to: 5, delivered: 2, offline: 3 }, now); // replay: ignored
    current = await recorder.record(task, current, { from: 5, to: 10, delivered: 5, offline: 0 }, now);
    expect(current).toMatchObject({ checkpoint: 10, delivered: 7, offline: 3 });
    expect(await coordinator.getCheckpoint(task.id, 0)).toMatchObject({
      checkpoint: 10,
      delivered: 7,
      offline: 3,
      epoch: task.epoch,
    });
    expect((await store.listUnits(task.id))[0]!.checkpoint).toBe(0);
    expect(await recorder.settle(task, current, now)).toMatchObject({ checkpoint: 10, delivered: 7, offline: 3 });
    expect(await recorder.latest(task, (await store.listUnits(task.id))[0]!)).toMatchObject({ checkpoint: 10 });
  });

  it('settles completely when the controller moves the checkpoint between its read and its write', async () => {
    const coordinator = await createLocalCoordinatorCluster().connect();
    const { task, unit } = await sendingUnit();
    let raced = false;
    // The controller's sync lands right after the recorder read the unit: 0 -> 6 with its counts.
    const racing = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'listUnits') return Reflect.get(target, property, receiver);
        return async (taskId: number) => {
          const units = await target.listUnits(taskId);
          if (!raced) {
            raced = true;
            await target.checkpointUnit(
              taskId,
              0,
              { epoch: task.epoch },
              { from: 0, to: 6, delivered: 1, offline: 5 },
              now,
            );
          }
          return units;
        };
      },
    }) as TaskStore;
    const recorder = coordinatorRecorder(racing, coordinator);
    const known = { ...unit, checkpoint: 12, delivered: 4, offline: 8 };
    expect(await recorder.settle(task, known, now)).toMatchObject({ checkpoint: 12, delivered: 4, offline: 8 });
    expect(raced).toBe(true);
    expect((await store.listUnits(task.id))[0]).toMatchObject({ checkpoint: 12, delivered: 4, offline: 8 });
  });
});
