import { ErrorCodes, HeraldError } from '@herald/core';
import type { ConfirmedBatch, ConfirmedBatchLog } from '@herald/core/ports';
import { LRUCache } from 'lru-cache';

/** Units whose confirmed batches are remembered (a few hundred bytes per batch; 1,024 units of 2^20 recipients in 4,096-uin batches are ~20 MiB). */
export const MAX_CONFIRMED_UNITS = 1024;

interface UnitRecords {
  expiresAt: number;
  batches: Map<number, ConfirmedBatch>;
}

/**
 * The ConfirmedBatchLog of one process's memory: what the embedded profile
 * and tests use. It forgets everything when the process ends, so a restarted
 * executor delivers again what it wrote before (the production executor uses
 * the LevelDB log: store-level's LevelConfirmedBatchLog). Past
 * MAX_CONFIRMED_UNITS units the least recently used unit is forgotten.
 */
export class MemoryConfirmedBatchLog implements ConfirmedBatchLog {
  private readonly units: LRUCache<string, UnitRecords>;
  private closed = false;

  constructor(maxUnits = MAX_CONFIRMED_UNITS) {
    this.units = new LRUCache({ max: maxUnits });
  }

  async get(taskId: number, unitNo: number, offset: number): Promise<ConfirmedBatch | undefined> {
    this.assertOpen('get');
    const batch = this.units.get(`${taskId}:${unitNo}`)?.batches.get(offset);
    return batch === undefined ? undefined : { ...batch };
  }

  async record(
    taskId: number,
    unitNo: number,
    offset: number,
    batch: ConfirmedBatch,
    expiresAt: number,
  ): Promise<void> {
    this.assertOpen('record');
    const key = `${taskId}:${unitNo}`;
    let unit = this.units.get(key);
    if (unit === undefined) {
      this.units.set(key, (unit = { expiresAt, batches: new Map() }));
    }
    unit.expiresAt = expiresAt;
    unit.batches.set(offset, { to: batch.to, delivered: batch.delivered, offline: batch.offline });
  }

  async prune(now: number): Promise<number> {
    this.assertOpen('prune');
    let dropped = 0;
    for (const [key, unit] of [...this.units.entries()]) {
      if (unit.expiresAt > now) continue;
      dropped += unit.batches.size;
      this.units.delete(key);
    }
    return dropped;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.units.clear();
  }

  private assertOpen(op: string): void {
    if (this.closed) throw new HeraldError(ErrorCodes.STORE_CLOSED, `MemoryConfirmedBatchLog.${op}: the log is closed`);
  }
}
