import { bitAt, rejectionAt, type DeliveryRecord } from '@herald/core/fate';
import type { DeliveryGateway, DeliveryRecordLog, OfflineStore } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, newTask, waitFor } from '@herald/testing';
import type { UnitBatch } from '@herald/transport';
import { deliverBatch, type DeliverBatchDeps } from './deliver-batch';
import { MemoryConfirmedBatchLog } from './memory-confirmed-batch-log';
import { Personaliser } from './personalise';

const NOW = 1_700_000_000_000;
const task = { ...newTask({ content: { body: 'hi' }, expiresAt: NOW + 60_000 }), id: 5, epoch: 1 } as unknown as Task;
const batch: UnitBatch = {
  kind: 'unit.batch',
  taskId: 5,
  epoch: 1,
  unitNo: 0,
  offset: 4096,
  last: false,
  uins: Uint32Array.of(3, 7, 8, 20, 31, 40, 41, 42, 50),
};

/** The batch's records as written, with whether the confirmed-batch log already held the batch then. */
function recording(confirmed: MemoryConfirmedBatchLog) {
  const written: { record: DeliveryRecord; confirmedBefore: boolean }[] = [];
  const log: DeliveryRecordLog = {
    async recordBatch(record) {
      written.push({ record, confirmedBefore: (await confirmed.get(5, 0, 4096)) !== undefined });
    },
    recordBatches: () => Promise.reject(new Error('deliverBatch writes one record at a time')),
    batchAt: async () => undefined,
    batchesFrom: async function* () {},
    recordLogins: async () => undefined,
    loginOf: async () => undefined,
    loginsFrom: async function* () {},
    loginCounts: async () => ({ delivered: 0, expired: 0, over_frequency: 0 }),
    purgeTask: async () => ({ batches: 0, logins: 0 }),
    close: async () => undefined,
  };
  return { log, written };
}

function depsOf(
  gateway: DeliveryGateway,
  records: DeliveryRecordLog,
  confirmed: MemoryConfirmedBatchLog,
): DeliverBatchDeps {
  const online = new TypedArrayBitmap(64);
  for (const uin of [7, 31, 42, 50]) online.setOnline(uin, true);
  const offline: OfflineStore = {
    append: async () => undefined,
    pending: async () => [],
    acknowledge: async () => undefined,
    async *scanTask() {},
    purgeExpired: async () => ({ entries: 0, records: 0, done: true }),
    close: async () => undefined,
  };
  return {
    executorId: 'executor-3',
    online,
    gateway,
    offline,
    confirmed,
    records,
    personaliser: new Personaliser(),
    clock: { now: () => NOW },
    counted: () => undefined,
  };
}

describe('deliverBatch with delivery records', () => {
  it("records the batch's online positions, before the batch counts as confirmed", async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log, written } = recording(confirmed);
    const gateway: DeliveryGateway = { deliver: async () => undefined, close: async () => undefined };
    expect(await deliverBatch(batch, task, depsOf(gateway, log, confirmed))).toEqual({
      online: 4,
      offline: 5,
      deadLetters: {},
    });
    expect(written).toHaveLength(1);
    const { record, confirmedBefore } = written[0]!;
    expect(confirmedBefore).toBe(false);
    expect(record).toMatchObject({ taskId: 5, from: 4096, count: 9, executor: 'executor-3', at: NOW });
    expect(Array.from(batch.uins, (_, i) => bitAt(record.online, i))).toEqual([
      false,
      true,
      false,
      false,
      true,
      false,
      false,
      true,
      true,
    ]);
  });

  it('keeps no rejections for a batch without dead letters', async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log, written } = recording(confirmed);
    const gateway: DeliveryGateway = { deliver: async () => ({ rejected: [] }), close: async () => undefined };
    await deliverBatch(batch, task, depsOf(gateway, log, confirmed));
    expect(written[0]!.record.rejected).toBeUndefined();
  });

  it("records the batch's dead letters in its record, under the reasons the task counts them by", async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log, written } = recording(confirmed);
    const gateway: DeliveryGateway = {
      deliver: async () => ({
        rejected: [
          { uin: 50, reason: 'unregistered' },
          { uin: 7, reason: 'Not A Token!' },
          { uin: 42, reason: 'unregistered' },
        ],
      }),
      close: async () => undefined,
    };
    const outcome = await deliverBatch(batch, task, depsOf(gateway, log, confirmed));
    expect(outcome).toEqual({ online: 1, offline: 5, deadLetters: { unregistered: 2, other: 1 } });
    const { record, confirmedBefore } = written[0]!;
    expect(confirmedBefore).toBe(false);
    const reasons = Array.from(batch.uins, (_, i) => rejectionAt(record.rejected!, i) ?? null);
    expect(reasons).toEqual([null, 'other', null, null, null, null, null, 'unregistered', 'unregistered']);
  });

  it('records nothing for a batch whose push failed (it comes again)', async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log, written } = recording(confirmed);
    const gateway: DeliveryGateway = {
      deliver: async () => Promise.reject(new Error('push channel down')),
      close: async () => undefined,
    };
    await expect(deliverBatch(batch, task, depsOf(gateway, log, confirmed))).rejects.toThrow('push channel down');
    expect(written).toEqual([]);
  });

  it('records the positions pushed, not those online, when quiet hours queue some online users offline', async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log, written } = recording(confirmed);
    const pushed: number[] = [];
    const gateway: DeliveryGateway = {
      deliver: async (delivery) => void pushed.push(...delivery.uins),
      close: async () => undefined,
    };
    const dir = await makeTempDir('herald-deliver-batch-');
    const zones = await LevelAttributeIndex.open(dir.path);
    try {
      // NOW is 22:13 UTC: 23:13 in Berlin, inside 23:00-08:00 there; UTC (users without a tz) is outside.
      await zones.putUsers([{ uin: 31, tz: 'Europe/Berlin' }]);
      const quiet = { ...task, quietHours: { from: '23:00', to: '08:00', during: 'offline' } } as Task;
      const outcome = await deliverBatch(batch, quiet, { ...depsOf(gateway, log, confirmed), zones });
      expect(outcome).toEqual({ online: 3, offline: 6, deadLetters: {} });
      expect(pushed).toEqual([7, 42, 50]);
      const { record } = written[0]!;
      // Position 4 (uin 31) is online but was queued: its bit is clear.
      expect(Array.from(batch.uins, (_, i) => bitAt(record.online, i))).toEqual([
        false,
        true,
        false,
        false,
        false,
        false,
        false,
        true,
        true,
      ]);
    } finally {
      await zones.close();
      await dir.remove();
    }
  });

  it("calls whileWriting once the batch's writes are under way, before they finished", async () => {
    const confirmed = new MemoryConfirmedBatchLog();
    const { log } = recording(confirmed);
    const events: string[] = [];
    let push!: () => void;
    const gateway: DeliveryGateway = {
      deliver: () => {
        events.push('push started');
        return new Promise<void>((resolve) => (push = resolve));
      },
      close: async () => undefined,
    };
    const deps = { ...depsOf(gateway, log, confirmed), whileWriting: () => events.push('whileWriting') };
    const delivering = deliverBatch(batch, task, deps);
    await waitFor(() => events.length === 2);
    expect(events).toEqual(['push started', 'whileWriting']);
    push();
    await delivering;
    expect(events).toEqual(['push started', 'whileWriting']);
  });
});
