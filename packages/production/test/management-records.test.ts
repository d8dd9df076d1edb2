import { HostsUnreachable, PurgeIncomplete, onlineBitsOf, unreachableOf, type DeliveryRecord } from '@herald/core/fate';
import { noopLogger } from '@herald/core/ports';
import {
  ClusterDeliveryRecords,
  ExecutorRecordsClient,
  hashManagementToken,
  startManagementServer,
  type ManagementServer,
} from '@herald/production';
import { LevelDeliveryRecordLog } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';

/**
 * The production profile's delivery records (docs/recipient-truth.md,
 * "Where"): each executor serves its own on its management endpoint
 * (GET /records/...), and an interface reads them across the executors
 * (ClusterDeliveryRecords): the executor of the position's unit first, the
 * others after a failover, every executor's walk merged in order, and a host
 * that does not answer named, never taken for "no record".
 */
const TOKEN = 'hmt_records-test-token';
const TASK = 7;
const HOSTS = ['executor-1', 'executor-2', 'executor-3'];

/** Batches of `count` positions over [start, end), every third position online, confirmed at `at`. */
function batches(executor: string, start: number, end: number, count: number, at: number): DeliveryRecord[] {
  const out: DeliveryRecord[] = [];
  for (let from = start; from < end; from += count) {
    const uins = Uint32Array.from({ length: count }, (_, i) => from + i);
    const online = uins.filter((p) => p % 3 === 0);
    out.push({ taskId: TASK, from, count, online: onlineBitsOf(uins, online), executor, at });
  }
  return out;
}

/**
 * executor-1 confirmed unit 0 [0, 1000) in batches of 2 (500 records: more than a page);
 * executor-3 confirmed [1000, 1200) of unit 1 before it was moved to executor-2, which confirmed
 * the rest [1200, 2000) and, again, the batch at 1100 (confirmed twice: the later record wins).
 */
const UNITS = [
  { unitNo: 0, start: 0, end: 1000, checkpoint: 1000, executorId: 'executor-1' },
  { unitNo: 1, start: 1000, end: 2000, checkpoint: 2000, executorId: 'executor-2' },
];
const WRITTEN: Record<string, DeliveryRecord[]> = {
  'executor-1': batches('executor-1', 0, 1000, 2, 10),
  'executor-2': [...batches('executor-2', 1100, 1200, 100, 30), ...batches('executor-2', 1200, 2000, 100, 30)],
  'executor-3': batches('executor-3', 1000, 1200, 100, 20),
};

describe('delivery records across executors', () => {
  let dir: TempDir;
  const logs = new Map<string, LevelDeliveryRecordLog>();
  const servers = new Map<string, ManagementServer>();
  const addresses: Record<string, string> = {};
  let cluster: ClusterDeliveryRecords;

  async function serve(host: string): Promise<void> {
    const server = await startManagementServer(
      {
        id: host,
        tier: 'executor',
        status: () => ({}),
        drain: async () => undefined,
        metrics: async () => ({ contentType: 'text/plain', body: '' }),
        deliveryRecords: logs.get(host)!,
      },
      {
        address: addresses[host] ?? '127.0.0.1:0',
        faults: false,
        tokenHash: hashManagementToken(TOKEN),
        logger: noopLogger,
      },
    );
    servers.set(host, server);
    addresses[host] = server.address;
  }

  beforeAll(async () => {
    dir = await makeTempDir('herald-records-');
    for (const host of HOSTS) {
      const log = await LevelDeliveryRecordLog.open(`${dir.path}/delivery-records-${host}`);
      logs.set(host, log);
      for (const record of WRITTEN[host]!) await log.recordBatch(record);
      await serve(host);
    }
    await logs.get('executor-2')!.recordLogins([
      { taskId: TASK, uin: 1201, outcome: 'delivered', at: 40 },
      { taskId: TASK, uin: 1202, outcome: 'expired', at: 41 },
    ]);
    await logs.get('executor-1')!.recordLogins([{ taskId: TASK, uin: 5, outcome: 'over_frequency', at: 42 }]);
    const client = new ExecutorRecordsClient(HOSTS, addresses, TOKEN, noopLogger, 1_000);
    cluster = new ClusterDeliveryRecords(client, { listUnits: async () => UNITS.map((u) => ({ ...u })) as never });
  });
  afterAll(async () => {
    for (const server of servers.values()) await server.close();
    for (const log of logs.values()) await log.close();
    await dir.remove();
  });

  const get = async (host: string, path: string, token = TOKEN) => {
    const response = await fetch(`http://${addresses[host]}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  describe("an executor's routes", () => {
    it('serves the record holding a position, and null where none does', async () => {
      const { body } = await get('executor-2', `/records/batch?task=${TASK}&position=1250`);
      expect(body.record).toMatchObject({ from: 1200 });
      expect((await get('executor-2', `/records/batch?task=${TASK}&position=50`)).body).toEqual({ record: null });
    });

    it('pages its records in position order, each page continuing after the last', async () => {
      const first = await get('executor-1', `/records/batches?task=${TASK}&from=1&limit=3`);
      expect((first.body.records as Array<{ from: number }>).map((r) => r.from)).toEqual([0, 2, 4]);
      expect(first.body.after).toBe(4);
      const next = await get('executor-1', `/records/batches?task=${TASK}&after=4&limit=1000`);
      expect((next.body.records as unknown[]).length).toBe(497);
      expect(next.body.after).toBeNull();
    });

    it('pages login outcomes and sums nothing it does not hold', async () => {
      const { body } = await get('executor-2', `/records/logins?task=${TASK}&from=0&limit=1`);
      expect(body).toEqual({ outcomes: [{ uin: 1201, outcome: 'delivered', at: 40 }], next: 1202 });
      expect((await get('executor-2', `/records/login?task=${TASK}&uin=1202`)).body).toEqual({
        outcome: { uin: 1202, outcome: 'expired', at: 41 },
      });
      expect((await get('executor-3', `/records/login-counts?task=${TASK}`)).body).toEqual({
        counts: { delivered: 0, expired: 0, over_frequency: 0 },
      });
    });

    it('refuses bad queries naming the field, and callers without the token', async () => {
      const refusals = await Promise.all([
        get('executor-1', `/records/batch?task=0&position=1`),
        get('executor-1', `/records/batch?task=${TASK}`),
        get('executor-1', `/records/batch?task=${TASK}&position=-1`),
        get('executor-1', `/records/batch?task=${TASK}&position=1&extra=2`),
        get('executor-1', `/records/batches?task=${TASK}&from=1&after=2`),
        get('executor-1', `/records/batches?task=${TASK}&from=1&limit=100000`),
        get('executor-1', `/records/login?task=${TASK}&uin=4294967296`),
      ]);
      expect(refusals.map((r) => [r.status, (r.body.details as { field: string }).field])).toEqual([
        [400, 'task'],
        [400, 'position'],
        [400, 'position'],
        [400, 'extra'],
        [400, 'from'],
        [400, 'limit'],
        [400, 'uin'],
      ]);
      expect((await get('executor-1', `/records/batch?task=${TASK}&position=1`, 'hmt_wrong')).status).toBe(401);
    });
  });

  describe('read across the executors', () => {
    it("finds a position's record on its unit's executor, or on the one that had the unit before", async () => {
      expect(await cluster.batchAt(TASK, 7)).toMatchObject({ from: 6, executor: 'executor-1' });
      expect(await cluster.batchAt(TASK, 1050)).toMatchObject({ from: 1000, executor: 'executor-3' });
      // Confirmed by both: the later record.
      expect(await cluster.batchAt(TASK, 1150)).toMatchObject({ from: 1100, executor: 'executor-2', at: 30 });
      expect(await cluster.batchAt(TASK, 2500)).toBeUndefined();
    });

    it("walks every executor's records as one, in position order, a position confirmed twice once", async () => {
      const walk = cluster.batchesFrom(TASK, 0);
      const froms: number[] = [];
      for await (const record of walk) froms.push(record.from);
      const expected = [...new Set(Object.values(WRITTEN).flatMap((list) => list.map((r) => r.from)))].sort(
        (a, b) => a - b,
      );
      expect(froms).toEqual(expected);
      expect(unreachableOf(walk).size).toBe(0);
      const logins: number[] = [];
      for await (const outcome of cluster.loginsFrom(TASK, 0)) logins.push(outcome.uin);
      expect(logins).toEqual([5, 1201, 1202]);
      expect(await cluster.loginCounts(TASK)).toEqual({ delivered: 1, expired: 1, over_frequency: 1 });
      expect(await cluster.loginOf(TASK, 1202)).toMatchObject({ outcome: 'expired' });
    });

    it('counts a recipient settled on two executors once, by its latest outcome', async () => {
      // Task 8: unit 1 moved from executor-3 to executor-2, which confirmed the batch at 1100 again; uin 1150
      // (position 1150) was queued on both and settled by both at its login, executor-2 later.
      const TWICE = 8;
      const records = (host: string) => WRITTEN[host]!.map((r) => ({ ...r, taskId: TWICE }));
      for (const host of HOSTS) for (const record of records(host)) await logs.get(host)!.recordBatch(record);
      await logs.get('executor-3')!.recordLogins([
        { taskId: TWICE, uin: 1050, outcome: 'delivered', at: 21 },
        { taskId: TWICE, uin: 1150, outcome: 'delivered', at: 22 },
      ]);
      await logs.get('executor-2')!.recordLogins([
        { taskId: TWICE, uin: 1150, outcome: 'expired', at: 35 },
        { taskId: TWICE, uin: 1500, outcome: 'delivered', at: 36 },
      ]);
      await logs.get('executor-1')!.recordLogins([{ taskId: TWICE, uin: 5, outcome: 'over_frequency', at: 37 }]);
      expect(await cluster.loginOf(TWICE, 1150)).toMatchObject({ outcome: 'expired', at: 35 });
      expect(await cluster.loginCounts(TWICE)).toEqual({ delivered: 2, expired: 1, over_frequency: 1 });
    });

    it('counts once a recipient queued by an executor killed before it wrote the batch record', async () => {
      // Task 12: executor-1 queued uin 1150 offline and was killed before its group of batch records was
      // written, so it holds the recipient's login outcome and no record of task 12 at all; executor-2 took
      // the unit, queued 1150 again and settled it later. (CI 2026-11-28: 17 recipients counted twice.)
      const RECORDLESS = 12;
      for (const record of WRITTEN['executor-2']!)
        await logs.get('executor-2')!.recordBatch({ ...record, taskId: RECORDLESS });
      await logs.get('executor-1')!.recordLogins([{ taskId: RECORDLESS, uin: 1150, outcome: 'delivered', at: 50 }]);
      await logs.get('executor-2')!.recordLogins([
        { taskId: RECORDLESS, uin: 1150, outcome: 'over_frequency', at: 51 },
        { taskId: RECORDLESS, uin: 1300, outcome: 'delivered', at: 52 },
      ]);
      expect(await cluster.loginOf(RECORDLESS, 1150)).toMatchObject({ outcome: 'over_frequency' });
      expect(await cluster.loginCounts(RECORDLESS)).toEqual({ delivered: 1, expired: 0, over_frequency: 1 });
    });

    it('names a host that does not answer rather than answer "no record"', async () => {
      await servers.get('executor-2')!.close();
      try {
        // Its unit's record is elsewhere only for the positions the old executor confirmed.
        expect(await cluster.batchAt(TASK, 1050)).toMatchObject({ executor: 'executor-3' });
        await expect(cluster.batchAt(TASK, 1500)).rejects.toEqual(new HostsUnreachable(['executor-2']));
        await expect(cluster.loginOf(TASK, 1201)).rejects.toEqual(new HostsUnreachable(['executor-2']));
        await expect(cluster.loginCounts(TASK)).rejects.toEqual(new HostsUnreachable(['executor-2']));
        // Another host's outcome is still found.
        expect(await cluster.loginOf(TASK, 5)).toMatchObject({ outcome: 'over_frequency' });
        const walk = cluster.batchesFrom(TASK, 900);
        const froms: number[] = [];
        for await (const record of walk) froms.push(record.from);
        expect(froms[0]).toBe(900);
        expect(froms.at(-1)).toBe(1100);
        expect([...unreachableOf(walk)]).toEqual(['executor-2']);
      } finally {
        await serve('executor-2');
      }
      expect(await cluster.batchAt(TASK, 1500)).toMatchObject({ executor: 'executor-2' });
    });

    it("purges a task's records on every executor, refusing a bad body naming the field", async () => {
      const GONE = 9;
      for (const host of HOSTS)
        for (const record of WRITTEN[host]!) await logs.get(host)!.recordBatch({ ...record, taskId: GONE });
      await logs.get('executor-2')!.recordLogins([{ taskId: GONE, uin: 1201, outcome: 'delivered', at: 40 }]);
      const post = (body: string) =>
        fetch(`http://${addresses['executor-1']}/records/purge`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        }).then(async (r) => [r.status, ((await r.json()) as { details?: { field: string } }).details?.field]);
      expect(await post('{"task": 0}')).toEqual([400, 'task']);
      expect(await post(`{"task": ${GONE}, "all": true}`)).toEqual([400, 'all']);

      expect(await cluster.purgeTask(GONE)).toEqual({ batches: 500 + 9 + 2, logins: 1 });
      expect(await cluster.batchAt(GONE, 1150)).toBeUndefined();
      expect(await cluster.loginOf(GONE, 1201)).toBeUndefined();
      expect(await cluster.loginCounts(GONE)).toEqual({ delivered: 0, expired: 0, over_frequency: 0 });
      // Task 7's records are untouched.
      expect(await cluster.batchAt(TASK, 1150)).toMatchObject({ executor: 'executor-2' });

      // Written again on executor-1, purged while executor-3 is down: named, and what executor-1 removed is said.
      await logs.get('executor-1')!.recordBatch({ ...WRITTEN['executor-1']![0]!, taskId: GONE });
      await servers.get('executor-3')!.close();
      try {
        const incomplete = cluster.purgeTask(GONE);
        await expect(incomplete).rejects.toEqual(new PurgeIncomplete(['executor-3'], { batches: 1, logins: 0 }));
        await expect(incomplete).rejects.toMatchObject({ hosts: ['executor-3'], purged: { batches: 1, logins: 0 } });
      } finally {
        await serve('executor-3');
      }
    });
  });
});
