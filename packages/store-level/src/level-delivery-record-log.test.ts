import { ClassicLevel } from 'classic-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { onlineBitsOf, rejectionsOf } from '@herald/core/fate';
import { LevelDeliveryRecordLog } from './level-delivery-record-log';

describe('LevelDeliveryRecordLog', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-deliveries-');
  });
  afterEach(() => dir.remove());

  const batch = (taskId: number, from: number, count: number, executor = 'e1') => ({
    taskId,
    from,
    count,
    online: onlineBitsOf(
      Uint32Array.from({ length: count }, (_, i) => i),
      Uint32Array.from({ length: Math.ceil(count / 2) }, (_, i) => 2 * i),
    ),
    executor,
    at: 1_000 + from,
  });

  it('finds the batch holding a position, and none in a gap or past the end or in another task', async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      await log.recordBatch(batch(5, 0, 10));
      await log.recordBatch(batch(5, 20, 10));
      await log.recordBatch(batch(6, 0, 100));
      expect(await log.batchAt(5, 0)).toEqual(batch(5, 0, 10));
      expect((await log.batchAt(5, 9))?.from).toBe(0);
      expect(await log.batchAt(5, 10)).toBeUndefined();
      expect((await log.batchAt(5, 29))?.from).toBe(20);
      expect(await log.batchAt(5, 30)).toBeUndefined();
      expect(await log.batchAt(4, 0)).toBeUndefined();
    } finally {
      await log.close();
    }
  });

  it("keeps a batch's rejections in its record: batchAt and batchesFrom read them back", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      const uins = Uint32Array.from({ length: 10 }, (_, i) => i);
      const rejected = rejectionsOf(uins, [
        { uin: 4, reason: 'unregistered' },
        { uin: 0, reason: 'bad_device_token' },
      ])!;
      await log.recordBatch({ ...batch(7, 0, 10), rejected });
      await log.recordBatch(batch(7, 10, 10));
      expect(await log.batchAt(7, 3)).toEqual({ ...batch(7, 0, 10), rejected });
      const read = [];
      for await (const record of log.batchesFrom(7, 0)) read.push(record);
      expect(read.map((r) => r.rejected)).toEqual([rejected, undefined]);
    } finally {
      await log.close();
    }
  });

  it('writes several records as one write (recordBatches), each read back, a record written again replaced', async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      const uins = Uint32Array.from({ length: 10 }, (_, i) => i);
      const rejected = rejectionsOf(uins, [{ uin: 2, reason: 'unregistered' }])!;
      await log.recordBatches([batch(8, 0, 10), { ...batch(8, 10, 10), rejected }, batch(9, 0, 10)]);
      await log.recordBatches([batch(8, 0, 10, 'e2')]);
      await log.recordBatches([]);
      const read = [];
      for await (const record of log.batchesFrom(8, 0)) read.push(record);
      expect(read).toEqual([batch(8, 0, 10, 'e2'), { ...batch(8, 10, 10), rejected }]);
      expect(await log.batchAt(9, 9)).toEqual(batch(9, 0, 10));
    } finally {
      await log.close();
    }
  });

  it("yields a task's batches in position order from the one holding a position, and no other task's", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    const froms = async (taskId: number, position: number) => {
      const out: number[] = [];
      for await (const record of log.batchesFrom(taskId, position)) out.push(record.from);
      return out;
    };
    try {
      for (const from of [20, 0, 300, 40]) await log.recordBatch(batch(5, from, 10));
      await log.recordBatch(batch(6, 0, 100));
      expect(await froms(5, 0)).toEqual([0, 20, 40, 300]);
      expect(await froms(5, 25)).toEqual([20, 40, 300]);
      expect(await froms(5, 12)).toEqual([20, 40, 300]);
      expect(await froms(5, 310)).toEqual([]);
      expect(await froms(4, 0)).toEqual([]);
    } finally {
      await log.close();
    }
  });

  it("yields a task's login outcomes in uin order from a uin, and no other task's", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    const uins = async (taskId: number, uin: number) => {
      const out: number[] = [];
      for await (const outcome of log.loginsFrom(taskId, uin)) out.push(outcome.uin);
      return out;
    };
    try {
      await log.recordLogins(
        [300, 7, 0xffff_ffff, 40].map((uin) => ({ taskId: 5, uin, outcome: 'delivered' as const, at: uin })),
      );
      await log.recordLogins([{ taskId: 6, uin: 1, outcome: 'expired', at: 1 }]);
      expect(await uins(5, 0)).toEqual([7, 40, 300, 0xffff_ffff]);
      expect(await uins(5, 41)).toEqual([300, 0xffff_ffff]);
      expect(await uins(4, 0)).toEqual([]);
      for await (const outcome of log.loginsFrom(6, 0))
        expect(outcome).toEqual({ taskId: 6, uin: 1, outcome: 'expired', at: 1 });
    } finally {
      await log.close();
    }
  });

  it('keeps batches and login outcomes across a reopen, the latest write of a key winning', async () => {
    const first = await LevelDeliveryRecordLog.open(dir.path);
    await first.recordBatch(batch(5, 0, 10));
    await first.recordBatch(batch(5, 0, 10, 'e2'));
    await first.recordLogins([
      { taskId: 5, uin: 1, outcome: 'delivered', at: 7 },
      { taskId: 5, uin: 3, outcome: 'over_frequency', at: 8 },
    ]);
    await first.close();
    const second = await LevelDeliveryRecordLog.open(dir.path);
    try {
      expect((await second.batchAt(5, 3))?.executor).toBe('e2');
      expect(await second.loginOf(5, 1)).toEqual({ taskId: 5, uin: 1, outcome: 'delivered', at: 7 });
      expect(await second.loginOf(5, 3)).toMatchObject({ outcome: 'over_frequency' });
      expect(await second.loginOf(5, 2)).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it("counts a task's login outcomes by kind, an outcome recorded again once, calls at once in turn", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      await Promise.all([
        log.recordLogins([
          { taskId: 5, uin: 1, outcome: 'delivered', at: 1 },
          { taskId: 5, uin: 2, outcome: 'delivered', at: 1 },
          { taskId: 6, uin: 1, outcome: 'expired', at: 1 },
        ]),
        log.recordLogins([{ taskId: 5, uin: 3, outcome: 'over_frequency', at: 2 }]),
        log.recordLogins([
          { taskId: 5, uin: 2, outcome: 'delivered', at: 3 },
          { taskId: 5, uin: 4, outcome: 'expired', at: 3 },
          { taskId: 5, uin: 4, outcome: 'expired', at: 4 },
        ]),
      ]);
      // A walk repeated after a crash records uin 3 again, now delivered: it moves, it is not added.
      await log.recordLogins([{ taskId: 5, uin: 3, outcome: 'delivered', at: 5 }]);
      expect(await log.loginCounts(5)).toEqual({ delivered: 3, expired: 1, over_frequency: 0 });
      expect(await log.loginCounts(6)).toEqual({ delivered: 0, expired: 1, over_frequency: 0 });
      expect(await log.loginCounts(7)).toEqual({ delivered: 0, expired: 0, over_frequency: 0 });
    } finally {
      await log.close();
    }
  });

  it('counts the outcomes of a task recorded before the counts existed, and goes on from them', async () => {
    const first = await LevelDeliveryRecordLog.open(dir.path);
    await first.recordLogins([
      { taskId: 5, uin: 1, outcome: 'delivered', at: 1 },
      { taskId: 5, uin: 2, outcome: 'over_frequency', at: 1 },
    ]);
    await first.close();
    // What a log written before the counts looks like: outcomes, no 'n' key.
    const raw = new ClassicLevel<Buffer, Buffer>(dir.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await raw.clear({ gte: Buffer.from('n'), lt: Buffer.from('o') });
    await raw.close();
    const second = await LevelDeliveryRecordLog.open(dir.path);
    try {
      expect(await second.loginCounts(5)).toEqual({ delivered: 1, expired: 0, over_frequency: 1 });
      await second.recordLogins([{ taskId: 5, uin: 9, outcome: 'delivered', at: 2 }]);
      expect(await second.loginCounts(5)).toEqual({ delivered: 2, expired: 0, over_frequency: 1 });
    } finally {
      await second.close();
    }
  });

  it("counts a task's outcomes by bucket of 2^16 uins, adding up to its counts, each write counted", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      const B = 1 << 16;
      await log.recordLogins([
        { taskId: 5, uin: 1, outcome: 'delivered', at: 1 },
        { taskId: 5, uin: B - 1, outcome: 'expired', at: 1 },
        { taskId: 5, uin: 3 * B + 7, outcome: 'over_frequency', at: 1 },
        { taskId: 6, uin: B, outcome: 'delivered', at: 1 },
      ]);
      // Recorded again (a walk repeated after a crash): the count moves, the bucket's writes grow.
      await log.recordLogins([{ taskId: 5, uin: 1, outcome: 'expired', at: 2 }]);
      const buckets = await log.loginBuckets(5);
      expect(buckets).toEqual([
        { bucket: 0, counts: { delivered: 0, expired: 2, over_frequency: 0 }, writes: 3 },
        { bucket: 3, counts: { delivered: 0, expired: 0, over_frequency: 1 }, writes: 1 },
      ]);
      const summed = { delivered: 0, expired: 0, over_frequency: 0 };
      for (const { counts } of buckets)
        for (const kind of ['delivered', 'expired', 'over_frequency'] as const) summed[kind] += counts[kind];
      expect(summed).toEqual(await log.loginCounts(5));
      expect(await log.loginBuckets(6)).toEqual([
        { bucket: 1, counts: { delivered: 1, expired: 0, over_frequency: 0 }, writes: 1 },
      ]);
      expect(await log.loginBuckets(7)).toEqual([]);
      await log.purgeTask(5);
      expect(await log.loginBuckets(5)).toEqual([]);
      await log.recordLogins([{ taskId: 5, uin: 2, outcome: 'delivered', at: 3 }]);
      expect(await log.loginBuckets(5)).toEqual([
        { bucket: 0, counts: { delivered: 1, expired: 0, over_frequency: 0 }, writes: 1 },
      ]);
    } finally {
      await log.close();
    }
  });

  it('counts by bucket the outcomes of a task recorded before the buckets existed, and goes on from them', async () => {
    const first = await LevelDeliveryRecordLog.open(dir.path);
    await first.recordLogins([
      { taskId: 5, uin: 1, outcome: 'delivered', at: 1 },
      { taskId: 5, uin: 70_000, outcome: 'over_frequency', at: 1 },
    ]);
    await first.close();
    // What a log written before the buckets looks like: outcomes and counts, no 'b' or 'B' key.
    const raw = new ClassicLevel<Buffer, Buffer>(dir.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await raw.clear({ gte: Buffer.from('B'), lt: Buffer.from('C') });
    await raw.clear({ gte: Buffer.from('b'), lt: Buffer.from('c') });
    await raw.close();
    const second = await LevelDeliveryRecordLog.open(dir.path);
    try {
      const counted = [
        { bucket: 0, counts: { delivered: 1, expired: 0, over_frequency: 0 }, writes: 0 },
        { bucket: 1, counts: { delivered: 0, expired: 0, over_frequency: 1 }, writes: 0 },
      ];
      expect(await second.loginBuckets(5)).toEqual(counted);
      await second.recordLogins([{ taskId: 5, uin: 1, outcome: 'expired', at: 2 }]);
      expect(await second.loginBuckets(5)).toEqual([
        { bucket: 0, counts: { delivered: 0, expired: 1, over_frequency: 0 }, writes: 1 },
        counted[1],
      ]);
    } finally {
      await second.close();
    }
  });

  it("purges one task's batches, outcomes and counts, in steps, and leaves the other tasks'", async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    try {
      for (const from of [0, 10, 20]) await log.recordBatch(batch(5, from, 10));
      await log.recordBatch(batch(6, 0, 10));
      // More outcomes than one purge step (10,000) removes.
      const many = Array.from({ length: 12_345 }, (_, uin) => ({
        taskId: 5,
        uin,
        outcome: 'delivered' as const,
        at: 1,
      }));
      await log.recordLogins([...many, { taskId: 6, uin: 3, outcome: 'expired', at: 2 }]);
      expect(await log.loginCounts(5)).toEqual({ delivered: 12_345, expired: 0, over_frequency: 0 });

      expect(await log.purgeTask(5)).toEqual({ batches: 3, logins: 12_345 });
      expect(await log.batchAt(5, 15)).toBeUndefined();
      expect(await log.loginOf(5, 7)).toBeUndefined();
      expect(await log.loginCounts(5)).toEqual({ delivered: 0, expired: 0, over_frequency: 0 });
      const left = [];
      for await (const record of log.batchesFrom(5, 0)) left.push(record);
      for await (const outcome of log.loginsFrom(5, 0)) left.push(outcome);
      expect(left).toEqual([]);
      // The other task keeps everything; a second purge finds nothing.
      expect(await log.batchAt(6, 5)).toEqual(batch(6, 0, 10));
      expect(await log.loginCounts(6)).toEqual({ delivered: 0, expired: 1, over_frequency: 0 });
      expect(await log.purgeTask(5)).toEqual({ batches: 0, logins: 0 });
    } finally {
      await log.close();
    }
  });

  it('fails with STORE_CLOSED after close', async () => {
    const log = await LevelDeliveryRecordLog.open(dir.path);
    await log.close();
    await expect(log.batchAt(1, 0)).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});
