import type { DeliveryRecord } from '@herald/core/fate';
import { waitFor } from '@herald/testing';
import { RecordGroup } from './record-group';

const HOUR_MS = 3_600_000;

function record(from: number): DeliveryRecord {
  return { taskId: 1, from, count: 8, online: Uint8Array.of(0b101), executor: 'e1', at: 0 };
}

/** A log whose writes resolve (or fail) when the test says; each write is the positions it held. */
function heldLog() {
  const writes: { froms: number[]; land: () => void; fail: (error: Error) => void }[] = [];
  const log = {
    recordBatches: (records: readonly DeliveryRecord[]) =>
      new Promise<void>((land, fail) => writes.push({ froms: records.map((r) => r.from), land, fail })),
  };
  return { log, writes };
}

/** Whether `promise` settled after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  return done;
}

describe('RecordGroup', () => {
  it('writes the records as one write when told once it holds `size` of them, and answers each once that write landed', async () => {
    const { log, writes } = heldLog();
    const group = new RecordGroup(log, 3, HOUR_MS);
    const landed = [0, 8].map((from) => group.add(record(from)));
    group.writeIfFull();
    expect(writes).toHaveLength(0);
    landed.push(group.add(record(16)));
    // Adding never writes: the caller chooses the moment of the hand-over.
    expect(writes).toHaveLength(0);
    group.writeIfFull();
    expect(writes.map((w) => w.froms)).toEqual([[0, 8, 16]]);
    expect(await settled(landed[0]!)).toBe(false);
    writes[0]!.land();
    await Promise.all(landed);
  });

  it('holds fewer records until flushed, and a flush of none writes nothing', async () => {
    const { log, writes } = heldLog();
    const group = new RecordGroup(log, 3, HOUR_MS);
    const landed = group.add(record(0));
    expect(writes).toHaveLength(0);
    group.flush();
    group.flush();
    expect(writes.map((w) => w.froms)).toEqual([[0]]);
    writes[0]!.land();
    await landed;
  });

  it('writes what it holds at the end of the turn when asked to flush soon, once', async () => {
    const { log, writes } = heldLog();
    const group = new RecordGroup(log, 3, HOUR_MS);
    const landed = group.add(record(0));
    group.flushSoon();
    group.flushSoon();
    expect(writes).toHaveLength(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(writes.map((w) => w.froms)).toEqual([[0]]);
    writes[0]!.land();
    await landed;
  });

  it('writes what it holds after maxHoldMs without a flush', async () => {
    const { log, writes } = heldLog();
    const group = new RecordGroup(log, 3, 1);
    const landed = group.add(record(0));
    await waitFor(() => writes.length === 1);
    writes[0]!.land();
    await landed;
  });

  it('fails every record of a write that failed, and none of the next write', async () => {
    const { log, writes } = heldLog();
    const group = new RecordGroup(log, 2, HOUR_MS);
    const first = [group.add(record(0)), group.add(record(8))];
    group.writeIfFull();
    const next = group.add(record(16));
    writes[0]!.fail(new Error('disk full'));
    for (const landed of first) await expect(landed).rejects.toThrow('disk full');
    group.flush();
    writes[1]!.land();
    await next;
  });

  it('refuses a size or hold that cannot work, naming it', () => {
    const { log } = heldLog();
    expect(() => new RecordGroup(log, 0, 1)).toThrow(/size/);
    expect(() => new RecordGroup(log, 1.5, 1)).toThrow(/size/);
    expect(() => new RecordGroup(log, 2, -1)).toThrow(/maxHoldMs/);
  });
});
