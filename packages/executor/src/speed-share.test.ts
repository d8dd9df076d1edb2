import type { ExecutionUnit, Task } from '@herald/core/task';
import { SPEED_SHARE_REFRESH_MS, speedShareOf } from './speed-share';

const unit = (unitNo: number, start: number, end: number, executorId: string): ExecutionUnit => ({
  taskId: 1,
  unitNo,
  start,
  end,
  executorId,
  state: 'RUNNING',
  checkpoint: start,
  delivered: 0,
  offline: 0,
  updatedAt: 0,
});

const task = (speed: number | null, id = 1) => ({ id, speed }) as unknown as Task;

function fixture(units: ExecutionUnit[]) {
  let now = 0;
  let reads = 0;
  const store = {
    listUnits: async () => {
      reads++;
      return units;
    },
  };
  return { store, clock: { now: () => now }, advance: (ms: number) => (now += ms), reads: () => reads };
}

describe('speedShareOf (an executor paces its share of the task speed)', () => {
  it('does not pace a task without a speed, and reads no units for it', async () => {
    const f = fixture([unit(0, 0, 100, 'e1')]);
    expect(await speedShareOf(f.store, 'e1', f.clock)(task(null))).toBeUndefined();
    expect(f.reads()).toBe(0);
  });

  it('gives the executor the part of the speed its recipients are of the task, so the executors add up to the speed', async () => {
    // 250 recipients: e1 holds 100 + 50, e2 holds 100.
    const f = fixture([unit(0, 0, 100, 'e1'), unit(1, 100, 200, 'e2'), unit(2, 200, 250, 'e1')]);
    const e1 = await speedShareOf(f.store, 'e1', f.clock)(task(1000));
    const e2 = await speedShareOf(f.store, 'e2', f.clock)(task(1000));
    expect(e1).toBe(600);
    expect(e2).toBe(400);
    expect(e1! + e2!).toBe(1000);
  });

  it('paces at the whole speed when it holds every unit, or none it can see', async () => {
    const f = fixture([unit(0, 0, 100, 'e1'), unit(1, 100, 200, 'e1')]);
    expect(await speedShareOf(f.store, 'e1', f.clock)(task(300))).toBe(300);
    expect(await speedShareOf(f.store, 'e9', f.clock)(task(300))).toBe(300);
    expect(await speedShareOf(fixture([]).store, 'e1', f.clock)(task(300))).toBe(300);
    const failing = { listUnits: async () => Promise.reject(new Error('store down')) };
    expect(await speedShareOf(failing, 'e1', f.clock)(task(300))).toBe(300);
  });

  it('reads the units once per refresh interval, and follows units that moved', async () => {
    const units = [unit(0, 0, 100, 'e1'), unit(1, 100, 200, 'e2')];
    const f = fixture(units);
    const speedOf = speedShareOf(f.store, 'e1', f.clock);
    expect(await speedOf(task(100))).toBe(50);
    expect(await speedOf(task(100))).toBe(50);
    expect(f.reads()).toBe(1);
    units[1] = { ...units[1]!, executorId: 'e1' }; // e2 was lost: e1 took its unit over
    f.advance(SPEED_SHARE_REFRESH_MS - 1);
    expect(await speedOf(task(100))).toBe(50);
    f.advance(1);
    expect(await speedOf(task(100))).toBe(100);
    expect(f.reads()).toBe(2);
  });
});
