/**
 * The peer baseline's counting (bench/baseline/): on a private redis-server
 * (never the shared one), the counts of a 10^4 broadcast must equal what the
 * synthetic audience says they are, computed here independently, and the run
 * must leave no key behind; the daily cap must stop a second message.
 * Skipped where no redis-server binary is installed (deploy/test-all.sh does
 * not install one).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort, makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { FileDeliverySink, readDeliveryFile } from '@herald/executor';
import { Redis } from 'ioredis';

interface Counts {
  delivered: number;
  offline: number;
  duplicate: number;
  blacklisted: number;
  capped: number;
}
interface Audience {
  list: Uint32Array;
  distinct: Uint32Array;
  blacklist: Uint32Array;
  online: Uint32Array;
}
// The bench modules are plain JavaScript without types: required, typed here as far as the tests use them.
const { runBullmqBaseline } = require('../baseline/run') as {
  runBullmqBaseline(
    audience: Audience,
    options: { redisUrl: string; processes: number },
  ): Promise<Counts & { recipients: number; filtered: number }>;
};
const { processBatch } = require('../baseline/process-batch') as {
  processBatch(
    redis: Redis,
    keys: Keys,
    sink: unknown,
    batch: { taskId: number; uins: number[]; dailyCap: number; day: string },
  ): Promise<Counts>;
};
interface Keys {
  seen: string;
  online: string;
  offline(uin: number): string;
  cap(day: string, uin: number): string;
}
const { baselineKeys } = require('../baseline/keys') as { baselineKeys(run: string): Keys };
const { deleteRunKeys } = require('../baseline/cleanup') as {
  deleteRunKeys(redis: Redis, keys: Keys): Promise<{ total: number }>;
};
const { benchAudience } = require('../lib') as { benchAudience(recipients: number, online: number): Audience };

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedis) console.warn('bench/test/baseline.test.ts skipped: no redis-server on PATH');

(hasRedis ? describe : describe.skip)('peer baseline on BullMQ + Redis', () => {
  let dir: TempDir;
  let server: ChildProcess;
  let url: string;
  let redis: Redis;

  beforeAll(async () => {
    dir = await makeTempDir('herald-baseline-test-');
    const port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir.path],
      { stdio: 'ignore' },
    );
    redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
    await waitFor(
      async () => {
        try {
          if (redis.status !== 'ready') await redis.connect();
          return (await redis.ping()) === 'PONG';
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, intervalMs: 50, message: 'private redis-server answering' },
    );
  });

  afterAll(async () => {
    redis?.disconnect();
    server?.kill();
    await dir?.remove();
  });

  it.each([
    ['in this process', 0],
    ['in 2 worker processes', 2],
  ])(
    'counts a 10^4 broadcast as the audience says, and leaves no key behind (workers %s)',
    async (_where, processes) => {
      const audience = benchAudience(10_000, 0.3);
      const blacklisted = new Set(audience.blacklist);
      const online = new Set(audience.online);
      let expectBlacklisted = 0;
      let expectDelivered = 0;
      for (const uin of audience.distinct) {
        if (blacklisted.has(uin)) expectBlacklisted++;
        else if (online.has(uin)) expectDelivered++;
      }

      const result = await runBullmqBaseline(audience, { redisUrl: url, processes });

      expect(result).toMatchObject({
        recipients: 10_000,
        duplicate: audience.list.length - audience.distinct.length,
        blacklisted: expectBlacklisted,
        capped: 0,
        delivered: expectDelivered,
        offline: audience.distinct.length - expectBlacklisted - expectDelivered,
      });
      expect(expectBlacklisted).toBeGreaterThan(0);
      expect(await redis.dbsize()).toBe(0);
    },
  );

  it('delivers online users to the sink, stores offline ones, and caps a user at dailyCap messages a day', async () => {
    const keys = baselineKeys('cap-test');
    const sink = new FileDeliverySink(`${dir.path}/sink`);
    await redis.setbit(keys.online, 11, 1);
    const batch = { uins: [11, 12, 12], dailyCap: 1, day: '2026-01-01' };

    const first = await processBatch(redis, keys, sink, { ...batch, taskId: 1 });
    // A second task (its own dedupe set), the same day: both users are at their cap.
    const second = await processBatch(redis, { ...keys, seen: `${keys.seen}:task-2` }, sink, { ...batch, taskId: 2 });
    await sink.close();

    expect(first).toEqual({ delivered: 1, offline: 1, duplicate: 1, blacklisted: 0, capped: 0 });
    expect(second).toEqual({ delivered: 0, offline: 0, duplicate: 1, blacklisted: 0, capped: 2 });
    expect(Array.from((await readDeliveryFile(`${dir.path}/sink`, 1)).uins)).toEqual([11]);
    expect((await readDeliveryFile(`${dir.path}/sink`, 2)).uins.length).toBe(0);
    expect(await redis.lrange(keys.offline(12), 0, -1)).toEqual(['1']);
    expect(await redis.ttl(keys.cap('2026-01-01', 12))).toBeGreaterThan(86_000);
    await deleteRunKeys(redis, keys);
    expect(await redis.dbsize()).toBe(0);
  });
});
