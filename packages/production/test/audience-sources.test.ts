/**
 * The production audience sources as the interface tier opens them
 * (openAudienceSources): MySQL adapters in a fresh migrated database, and,
 * with audiences.followEvents, follow/unfollow events published on the
 * Kafka-protocol broker (the tests' librdkafka mock) applied to the
 * followers table: in order per key, idempotently (a redelivered or late,
 * older change changes nothing).
 */
import { randomBytes } from 'node:crypto';
import { importFromSource, ListRepository, publishFollowChanges } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { noopLogger, noopMeter } from '@herald/core/ports';
import type { FollowChange } from '@herald/core/audience';
import { migrate } from '@herald/store-mysql';
import { makeTempDir, readAudience, waitFor, type TempDir } from '@herald/testing';
import { connectEventBus } from '../src/adapters';
import { openAudienceSources } from '../src/audience-adapters';
import { Resources } from '../src/tiers/resources';

jest.setTimeout(120_000);

const MYSQL_URL = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const name = `aud_${randomBytes(6).toString('hex')}`;
const database = `herald_test_${name}`;

function productionConfig(followEvents: boolean, dataDir = '/nonexistent') {
  const tcp = (port: number) => `tcp://127.0.0.1:${port}`;
  return compileConfig({
    profile: 'production',
    dataDir,
    uinSpaceBits: 24,
    mysql: { url: MYSQL_URL, database, poolSize: 4 },
    kafka: { brokers, topicPrefix: `${name}.` },
    zookeeper: { connectionString: '127.0.0.1:1' },
    curve: { keysDir: '/nonexistent' },
    topology: {
      schedulers: [{ id: 'scheduler-1', endpoint: tcp(1) }],
      dispatchers: [{ id: 'dispatcher-1', endpoint: tcp(2) }],
      executors: [{ id: 'executor-1', endpoint: tcp(3) }],
      presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/none', executors: ['executor-1'] }],
    },
    audiences: { followEvents },
  });
}

const change = (uin: number, following: boolean, at: number, accountId = 'acme'): FollowChange => ({
  accountId,
  uin,
  following,
  at,
});

describe('production audience sources', () => {
  const resources = new Resources();

  beforeAll(async () => {
    if (brokers.length === 0)
      throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
    await migrate(MYSQL_URL, { database });
  });

  afterAll(async () => {
    await resources.closeAll();
    const { createConnection } = await import('mysql2/promise');
    const conn = await createConnection({ uri: MYSQL_URL });
    await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await conn.end();
  });

  it('applies herald.follows to the followers table in order per key, and a redelivered or older change changes nothing', async () => {
    const config = productionConfig(true);
    const sources = await openAudienceSources(config, 'interface-1', noopLogger, noopMeter, resources);
    const producer = resources.add('producer', await connectEventBus(config, 'producer', noopLogger), (b) => b.close());
    const followers = async (accountId = 'acme') => (await readAudience(sources.followers!.followers(accountId))).uins;

    // Same key (uin 2): follow then unfollow, published in that order.
    await publishFollowChanges(producer, [
      change(1, true, 10),
      change(2, true, 10),
      change(2, false, 20),
      change(3, true, 10),
    ]);
    await waitFor(async () => JSON.stringify(await followers()) === JSON.stringify([1, 3]), {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'the first changes applied',
    });

    // A redelivery and a late, older follow of 2; then a sentinel on each key, so their order proves the stale ones were handled.
    await publishFollowChanges(producer, [change(1, true, 10), change(2, true, 15), change(3, true, 10)]);
    await publishFollowChanges(producer, [
      change(1, true, 1, 'sentinel'),
      change(2, true, 1, 'sentinel'),
      change(3, true, 1, 'sentinel'),
    ]);
    await waitFor(async () => (await followers('sentinel')).length === 3, {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'the sentinels applied',
    });
    expect(await followers()).toEqual([1, 3]);
  });

  it("feeds each interface process's local follower copies from herald.follows in a group of its own", async () => {
    const dir: TempDir = resources.add('temp dir', await makeTempDir('herald-prod-copies-'), (d) => d.remove());
    const config = productionConfig(true, dir.path);
    const sources = await openAudienceSources(config, 'interface-3', noopLogger, noopMeter, resources);
    const producer = resources.add('producer', await connectEventBus(config, 'producer-3', noopLogger), (b) =>
      b.close(),
    );
    await sources.followers!.applyFollows(Array.from({ length: 200 }, (_, i) => change(1000 + i, true, 1, 'copied')));
    const lists = new ListRepository(`${dir.path}/lists`);
    const { meta } = await importFromSource(lists, sources.followers!.followers('copied'), {
      accountId: 'copied',
      uinLimit: 2 ** 24,
    });
    await sources.followerCopies!.install('copied', lists.pathOf(meta.id));

    await publishFollowChanges(producer, [change(7, true, 5, 'copied'), change(1000, false, 5, 'copied')]);
    const fromCopy = async () =>
      (await readAudience(sources.followerCopies!.source('copied', sources.followers!))).uins;
    const fromTable = async () => (await readAudience(sources.followers!.followers('copied'))).uins;
    // Two groups, each at its own pace: wait for both to have applied the changes.
    await waitFor(
      async () =>
        (await fromCopy()).includes(7) && (await fromTable()).includes(7) && !(await fromTable()).includes(1000),
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: 'the copy and the table to hear the changes',
      },
    );
    expect(sources.followerCopies!.lastVerdict('copied')).toMatchObject({ at: 'copy' });
    expect(await fromCopy()).toEqual(await fromTable());
  });

  it('opens the table and targeting sources on the same database', async () => {
    const sources = await openAudienceSources(productionConfig(false), 'interface-2', noopLogger, noopMeter, resources);
    await sources.attributes!.putUsers([
      { uin: 5, region: 'cn-gd' },
      { uin: 6, region: 'cn-bj' },
    ]);
    const { createConnection } = await import('mysql2/promise');
    const conn = await createConnection({ uri: `${MYSQL_URL}/${database}` });
    await conn.query('CREATE TABLE crm (uin INT UNSIGNED PRIMARY KEY)');
    await conn.query('INSERT INTO crm VALUES (9), (4)');
    await conn.end();
    expect((await readAudience(sources.tables!.source({ table: 'crm', column: 'uin' }))).uins).toEqual([4, 9]);
  });
});
