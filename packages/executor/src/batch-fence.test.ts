import { noopLogger } from '@herald/core/ports';
import type { UnitBatch } from '@herald/transport';
import { BatchFence } from './batch-fence';

const batch = (taskId: number, epoch: number): UnitBatch => ({
  kind: 'unit.batch',
  taskId,
  epoch,
  unitNo: 0,
  offset: 0,
  last: false,
  uins: new Uint32Array([1]),
});

describe('BatchFence', () => {
  it('drops and counts the batches at or below an epoch a halt closed, not those after it', () => {
    const counts = { halted: 0, stale: 0 };
    const fence = new BatchFence({ halted: () => counts.halted++, stale: () => counts.stale++ }, noopLogger);
    fence.onHalt({ kind: 'task.halt', taskId: 1, epoch: 3, closesEpoch: true });
    expect(fence.isHalted(batch(1, 3))).toBe(true);
    expect(fence.isHalted(batch(1, 4))).toBe(false);
    expect(fence.isHalted(batch(2, 3))).toBe(false);
    expect(counts).toEqual({ halted: 1, stale: 0 });
  });

  it('ignores a halt that does not close its epoch', () => {
    const fence = new BatchFence({ halted: () => undefined, stale: () => undefined }, noopLogger);
    fence.onHalt({ kind: 'task.halt', taskId: 1, epoch: 3 });
    expect(fence.isHalted(batch(1, 3))).toBe(false);
  });

  it('counts a batch below the highest known epoch as stale', () => {
    const counts = { halted: 0, stale: 0 };
    const fence = new BatchFence({ halted: () => counts.halted++, stale: () => counts.stale++ }, noopLogger);
    expect(fence.raise(1, 5)).toBe(5);
    expect(fence.raise(1, 4)).toBe(5);
    expect(fence.isStale(batch(1, 4), fence.known(1) ?? 0)).toBe(true);
    expect(fence.isStale(batch(1, 5), fence.known(1) ?? 0)).toBe(false);
    expect(counts.stale).toBe(1);
  });
});
