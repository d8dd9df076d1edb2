import { HostsUnreachable, onlineBitsOf, type LoginOutcome, type LoginOutcomeKind } from '@herald/core/fate';
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
 * The funnel's login counts across executors (ClusterDeliveryRecords.
 * loginCounts): each recipient once, by its latest outcome, as the
 * per-recipient answer (loginOf) gives it, whichever units moved and
 * whatever each executor holds, merged over GET /records/login-buckets and
 * /records/bucket-outcomes; a host that does not answer is named, never
 * counted as nothing.
 */
const TOKEN = 'hmt_login-counts-test';
const HOSTS = ['executor-1', 'executor-2', 'executor-3'];
const KINDS: LoginOutcomeKind[] = ['delivered', 'expired', 'over_frequency'];
const UNIT = 1000;
const SPAN = 1 << 16;

/** A small deterministic generator (mulberry32), so a failing scenario can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface Scenario {
  units: Array<{ unitNo: number; start: number; end: number; checkpoint: number; executorId: string }>;
  /** Per host: its batch records' first positions and its login outcomes. */
  held: Map<string, { froms: number[]; outcomes: LoginOutcome[] }>;
  uins: number[];
}

/**
 * Eight units of a task; some moved from one executor to another after a
 * failover: both recorded batches of it, and recipients of it were settled
 * on the earlier one, the later one, or both (the later usually newer). A
 * unit's uins lie in a few buckets, and neighbouring units share buckets.
 */
function scenario(taskId: number, seed: number): Scenario {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const held = new Map(HOSTS.map((host) => [host, { froms: [] as number[], outcomes: [] as LoginOutcome[] }]));
  const units: Scenario['units'] = [];
  const uins: number[] = [];
  for (let unitNo = 0; unitNo < 8; unitNo++) {
    const start = unitNo * UNIT;
    const executorId = pick(HOSTS);
    const earlier = next() < 0.5 ? pick(HOSTS.filter((h) => h !== executorId)) : undefined;
    units.push({ unitNo, start, end: start + UNIT, checkpoint: start + UNIT, executorId });
    held.get(executorId)!.froms.push(start + 500);
    if (earlier !== undefined) held.get(earlier)!.froms.push(start);
    for (let j = 0; j < 40; j++) {
      const uin = Math.floor((unitNo + j / 40) * 0.6 * SPAN) + Math.floor(next() * 100);
      if (uins.includes(uin)) continue;
      uins.push(uin);
      const on = earlier === undefined ? [executorId] : pick([[earlier], [executorId], [earlier, executorId]]);
      on.forEach((host, i) =>
        held.get(host)!.outcomes.push({ taskId, uin, outcome: pick(KINDS), at: 100 * i + Math.floor(next() * 150) }),
      );
    }
  }
  return { units, held, uins };
}

describe('login counts across executors, each recipient once', () => {
  let dir: TempDir;
  const logs = new Map<string, LevelDeliveryRecordLog>();
  const servers = new Map<string, ManagementServer>();
  const addresses: Record<string, string> = {};
  const units = new Map<number, Scenario['units']>();
  let client: ExecutorRecordsClient;

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

  async function write(taskId: number, { held }: Scenario): Promise<void> {
    for (const [host, { froms, outcomes }] of held) {
      const log = logs.get(host)!;
      const uins = Uint32Array.from({ length: 8 }, (_, i) => i);
      for (const from of froms)
        await log.recordBatch({ taskId, from, count: 8, online: onlineBitsOf(uins, uins), executor: host, at: 1 });
      if (outcomes.length > 0) await log.recordLogins(outcomes);
    }
  }

  /** What the per-recipient answers say, counted by outcome. */
  async function answersCounted(cluster: ClusterDeliveryRecords, taskId: number, uins: readonly number[]) {
    const counts = { delivered: 0, expired: 0, over_frequency: 0 };
    for (const uin of uins) {
      const outcome = await cluster.loginOf(taskId, uin);
      if (outcome !== undefined) counts[outcome.outcome] += 1;
    }
    return counts;
  }

  const clusterOf = () =>
    new ClusterDeliveryRecords(client, { listUnits: async (taskId: number) => units.get(taskId) as never });

  beforeAll(async () => {
    dir = await makeTempDir('herald-login-counts-');
    for (const host of HOSTS) {
      logs.set(host, await LevelDeliveryRecordLog.open(`${dir.path}/delivery-records-${host}`));
      await serve(host);
    }
    client = new ExecutorRecordsClient(HOSTS, addresses, TOKEN, noopLogger, 5_000);
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

  it('agrees with the per-recipient answers whichever units moved, asked once and again', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const taskId = 100 + seed;
      const s = scenario(taskId, seed);
      units.set(taskId, s.units);
      await write(taskId, s);
      const cluster = clusterOf();
      const expected = await answersCounted(cluster, taskId, s.uins);
      expect({ seed, counts: await cluster.loginCounts(taskId) }).toEqual({ seed, counts: expected });
      // Asked again: the merged buckets remembered give the same.
      expect({ seed, counts: await cluster.loginCounts(taskId) }).toEqual({ seed, counts: expected });
    }
  });

  it('follows an outcome recorded again after a merge was remembered', async () => {
    const taskId = 200;
    const s = scenario(taskId, 7);
    units.set(taskId, s.units);
    await write(taskId, s);
    const cluster = clusterOf();
    await cluster.loginCounts(taskId);
    // A recipient settled on two executors gets a newer outcome on the one whose outcome lost.
    const twice = s.uins.find(
      (uin) => HOSTS.filter((h) => s.held.get(h)!.outcomes.some((o) => o.uin === uin)).length > 1,
    )!;
    const answer = (await cluster.loginOf(taskId, twice))!;
    const loser = HOSTS.find((h) => s.held.get(h)!.outcomes.some((o) => o.uin === twice && o.at < answer.at))!;
    const kind = KINDS.find((k) => k !== answer.outcome)!;
    await logs.get(loser)!.recordLogins([{ taskId, uin: twice, outcome: kind, at: 10_000 }]);
    expect(await cluster.loginCounts(taskId)).toEqual(await answersCounted(cluster, taskId, s.uins));
  });

  it('names a host that does not answer, never a count without it', async () => {
    const taskId = 300;
    const s = scenario(taskId, 8);
    units.set(taskId, s.units);
    await write(taskId, s);
    const cluster = clusterOf();
    const expected = await cluster.loginCounts(taskId);
    await servers.get('executor-2')!.close();
    try {
      await expect(cluster.loginCounts(taskId)).rejects.toEqual(new HostsUnreachable(['executor-2']));
    } finally {
      await serve('executor-2');
    }
    expect(await cluster.loginCounts(taskId)).toEqual(expected);
  });

  it('pages whole buckets of outcomes, at most 65,536, and refuses bad queries and callers without the token', async () => {
    const taskId = 400;
    // Bucket 0 full (one outcome per uin), and one in bucket 2.
    const full = Array.from({ length: SPAN }, (_, uin) => ({ taskId, uin, outcome: 'expired' as const, at: 1 }));
    await logs.get('executor-1')!.recordLogins([...full, { taskId, uin: 2 * SPAN + 3, outcome: 'delivered', at: 2 }]);
    const page = await get('executor-1', `/records/bucket-outcomes?task=${taskId}&bucket=0&buckets=3`);
    // The page is full with bucket 0; bucket 1 (empty) is covered too, bucket 2 is not.
    expect([page.body.outcomes, page.body.buckets]).toEqual([SPAN, 2]);
    const rest = await get('executor-1', `/records/bucket-outcomes?task=${taskId}&bucket=2&buckets=2`);
    expect([rest.body.outcomes, rest.body.buckets]).toEqual([1, 2]);
    const table = await client.loginBuckets('executor-1', taskId);
    expect([...table.buckets]).toEqual([0, 2]);
    expect([...table.counts]).toEqual([0, SPAN, 0, 1, 0, 0]);

    const refusals = await Promise.all([
      get('executor-1', `/records/login-buckets?task=0`),
      get('executor-1', `/records/login-buckets?task=${taskId}&bucket=1`),
      get('executor-1', `/records/bucket-outcomes?task=${taskId}`),
      get('executor-1', `/records/bucket-outcomes?task=${taskId}&bucket=65536`),
      get('executor-1', `/records/bucket-outcomes?task=${taskId}&bucket=1&buckets=0`),
    ]);
    expect(refusals.map((r) => [r.status, (r.body.details as { field: string }).field])).toEqual([
      [400, 'task'],
      [400, 'bucket'],
      [400, 'bucket'],
      [400, 'bucket'],
      [400, 'buckets'],
    ]);
    for (const path of [`/records/login-buckets?task=${taskId}`, `/records/bucket-outcomes?task=${taskId}&bucket=0`])
      expect((await get('executor-1', path, 'hmt_wrong')).status).toBe(401);
  });
});
