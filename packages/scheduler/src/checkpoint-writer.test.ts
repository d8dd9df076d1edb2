import { ErrorCodes, HeraldError } from '@herald/core';
import type { UnitCheckpoint } from '@herald/core/ports';
import { CheckpointWriter } from './checkpoint-writer';

/** A coordinator whose writes wait until the test lets them through, one by one. */
function heldCoordinator() {
  const written: UnitCheckpoint[] = [];
  const waiting: Array<{ checkpoint: UnitCheckpoint; settle: (error?: Error) => void }> = [];
  const arrived: Array<() => void> = [];
  return {
    written,
    putCheckpoint(checkpoint: UnitCheckpoint): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.push({
          checkpoint,
          settle: (error) => {
            if (error !== undefined) return reject(error);
            written.push(checkpoint);
            resolve();
          },
        });
        arrived.splice(0).forEach((wake) => wake());
      });
    },
    /** The write now in flight, once it is (waits for it). */
    async inFlight() {
      while (waiting.length === 0) await new Promise<void>((wake) => arrived.push(wake));
      return waiting.shift()!;
    },
    get waiting() {
      return waiting.length;
    },
  };
}

const checkpoint = (to: number, epoch = 1, unitNo = 0): UnitCheckpoint => ({
  taskId: 7,
  unitNo,
  epoch,
  checkpoint: to,
  delivered: to,
  offline: 0,
  at: 1_800_000_000_000,
});

describe('CheckpointWriter', () => {
  it('writes the first checkpoint at once and the newest of those recorded meanwhile next', async () => {
    const coordinator = heldCoordinator();
    const writer = new CheckpointWriter(coordinator, { everyMs: 0 });
    writer.put(checkpoint(4096));
    const first = await coordinator.inFlight();
    expect(first.checkpoint.checkpoint).toBe(4096);
    writer.put(checkpoint(8192));
    writer.put(checkpoint(12288));
    expect(coordinator.waiting).toBe(0); // one write in flight per unit
    first.settle();
    (await coordinator.inFlight()).settle();
    await writer.flush(7, 0);
    expect(coordinator.written.map((c) => c.checkpoint)).toEqual([4096, 12288]);
    expect(writer.size).toBe(0);
  });

  it('drops a checkpoint that does not supersede the last one queued', async () => {
    const coordinator = heldCoordinator();
    const writer = new CheckpointWriter(coordinator, { everyMs: 0 });
    writer.put(checkpoint(4096));
    const first = await coordinator.inFlight();
    writer.put(checkpoint(12288, 2));
    writer.put(checkpoint(16384, 1)); // an older epoch's, however far
    writer.put(checkpoint(8192, 2)); // behind the queued one
    first.settle();
    (await coordinator.inFlight()).settle();
    await writer.flush(7, 0);
    expect(coordinator.written.map((c) => [c.epoch, c.checkpoint])).toEqual([
      [1, 4096],
      [2, 12288],
    ]);
  });

  it("spaces a unit's writes, and a flush writes the queued one without waiting", async () => {
    const coordinator = heldCoordinator();
    const writer = new CheckpointWriter(coordinator, { everyMs: 3_600_000 });
    writer.put(checkpoint(4096));
    (await coordinator.inFlight()).settle();
    writer.put(checkpoint(8192, 1, 0));
    writer.put(checkpoint(4096, 1, 1)); // another unit: its own writes
    (await coordinator.inFlight()).settle();
    expect(coordinator.written.map((c) => [c.unitNo, c.checkpoint])).toEqual([
      [0, 4096],
      [1, 4096],
    ]);
    const flushed = writer.flush(7, 0);
    (await coordinator.inFlight()).settle();
    await flushed;
    expect(coordinator.written.map((c) => [c.unitNo, c.checkpoint])).toEqual([
      [0, 4096],
      [1, 4096],
      [0, 8192],
    ]);
    await writer.flush(7, 1);
    expect(writer.size).toBe(0);
  });

  it('keeps a checkpoint whose write failed and writes it again, unless a newer one comes first', async () => {
    const coordinator = heldCoordinator();
    const warnings: unknown[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (_: string, fields?: unknown) => warnings.push(fields),
      error: () => undefined,
    };
    const writer = new CheckpointWriter(coordinator, { everyMs: 0, retryMs: 3_600_000, logger });
    writer.put(checkpoint(4096));
    const failing = writer.flush(7, 0);
    (await coordinator.inFlight()).settle(new Error('connection loss'));
    await failing; // a flush does not wait for the retry
    expect(warnings).toEqual([expect.objectContaining({ taskId: 7, unitNo: 0, checkpoint: 4096 })]);
    expect(writer.size).toBe(1);
    const again = writer.flush(7, 0); // starts the retry now
    (await coordinator.inFlight()).settle();
    await again;
    expect(coordinator.written.map((c) => c.checkpoint)).toEqual([4096]);
    writer.put(checkpoint(8192));
    const failed = writer.flush(7, 0);
    (await coordinator.inFlight()).settle(new Error('connection loss'));
    await failed;
    writer.put(checkpoint(12288)); // newer than the failed one: written in its place, at once
    (await coordinator.inFlight()).settle();
    await writer.flush(7, 0);
    expect(coordinator.written.map((c) => c.checkpoint)).toEqual([4096, 12288]);
    expect(writer.size).toBe(0);
  });

  it("ends a unit's writes when the coordinator is closed", async () => {
    const coordinator = heldCoordinator();
    const writer = new CheckpointWriter(coordinator, { everyMs: 0, retryMs: 0 });
    writer.put(checkpoint(4096));
    const closed = writer.flush(7, 0);
    (await coordinator.inFlight()).settle(new HeraldError(ErrorCodes.STORE_CLOSED, 'closed'));
    await closed;
    expect(writer.size).toBe(0);
    expect(coordinator.waiting).toBe(0);
  });
});
