/**
 * Consumers that fell behind a topic's retention (docs/operations.md, "Kafka
 * topics"): on the tests' Kafka-protocol broker, librdkafka's mock cluster,
 * which keeps about 5 MiB a partition and compacts nothing. Each case lets a
 * consumer stop, publishes the events it must not miss, then overruns the
 * partition that holds them with 1 KiB records until the partition's log
 * start is past them; kafkajs then moves the consumer on with only a warning.
 * Herald must notice (herald_event_consumer_skipped_total, an error line) and
 * repair: the follower copies rebuilt from the followers table, the presence
 * bitmap rebuilt from the topic; recovery refuses reports it lost.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel, Partitioners, type Admin, type PartitionMetadata, type Producer } from 'kafkajs';
import { applyFollowEvents, FollowerCopies, loadRecipientList, writeRecipientListFile } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import { TOPICS, type Logger } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import { ReportsIncompleteError, ReportsMismatchError } from '@herald/core/recovery';
import { KafkaEventBus, type KafkaEventBusOptions } from '@herald/events-kafka';
import { createPromMeter, type PromMeter } from '@herald/metrics';
import { startPresenceAgent } from '@herald/presence';
import { migrate, MySqlFollowerStore } from '@herald/store-mysql';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { readTaskReports } from '../src/recover';
import { openFilterSources } from '../src/audience-adapters';
import { Resources } from '../src/tiers/resources';

jest.setTimeout(120_000);

const MYSQL_URL = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const tag = randomBytes(4).toString('hex');
/** The mock holds a new group's first join for 3 s and paces rebalances by the session timeout. */
const MOCK_TIMING: Partial<KafkaEventBusOptions> = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
};
/** Each flood record: JSON padded with spaces to 1 KiB (still the same JSON value). */
const RECORD_BYTES = 1024;

const kafka = new Kafka({ clientId: `retention-${tag}`, brokers, logLevel: logLevel.NOTHING });
let admin: Admin;
let producer: Producer;
let dir: TempDir;

/** Error lines, for the assertions that a skip is logged as an error. */
function recordingLogger(): Logger & { errors: Array<{ message: string; fields?: Record<string, unknown> }> } {
  const errors: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const trace = process.env.HERALD_TEST_TRACE === '1';
  const print = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    trace &&
    process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${level} ${message} ${JSON.stringify(fields)}\n`);
  return {
    errors,
    debug() {},
    info: print('info'),
    warn: print('warn'),
    error: (message, fields) => {
      print('error')(message, fields);
      errors.push({ message, fields });
    },
  };
}

/** A metric's value in the meter's exposition, for the sample whose labels include `labels`. */
async function metric(meter: PromMeter, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { body } = await meter.exposition();
  let total = 0;
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) total += Number(line.split(' ').pop());
  }
  return total;
}

const partitionsOf = new Map<string, PartitionMetadata[]>();

/** The partition kafkajs's default partitioner (the event bus's) puts `key` on. */
async function partitionOf(topic: string, key: string): Promise<number> {
  let partitionMetadata = partitionsOf.get(topic);
  if (partitionMetadata === undefined) {
    await admin.fetchTopicMetadata({ topics: [topic] }); // creates the topic on the mock if needed
    partitionMetadata = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions;
    partitionsOf.set(topic, partitionMetadata);
  }
  return Partitioners.DefaultPartitioner()({ topic, partitionMetadata, message: { key, value: null } });
}

/** Keys (uins from `from` on) that the default partitioner puts on `partition`, or (with `not`) anywhere else. */
async function keysOn(topic: string, partition: number, count: number, from: number, not = false): Promise<number[]> {
  const found: number[] = [];
  for (let uin = from; found.length < count; uin++)
    if (((await partitionOf(topic, String(uin))) === partition) !== not) found.push(uin);
  return found;
}

async function offsets(topic: string, partition: number): Promise<{ low: bigint; high: bigint }> {
  const p = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === partition)!;
  return { low: BigInt(p.low), high: BigInt(p.high) };
}

/**
 * Publishes 1 KiB records (`record(i)`, valid events of the topic) straight
 * to `partition` until its log start is past `offset`: everything up to
 * `offset` is then deleted. Returns how many it published.
 */
async function overrun(
  topic: string,
  partition: number,
  offset: bigint,
  record: (i: number) => { key: string; value: unknown },
): Promise<number> {
  let i = 0;
  while ((await offsets(topic, partition)).low <= offset) {
    const messages = Array.from({ length: 1000 }, () => {
      const { key, value } = record(i++);
      return { partition, key, value: JSON.stringify(value).padEnd(RECORD_BYTES), timestamp: String(Date.now()) };
    });
    await producer.send({ topic, acks: -1, messages });
    if (i > 100_000)
      throw new Error(`${topic}[${partition}]: log start still at or below ${offset} after ${i} records`);
  }
  return i;
}

beforeAll(async () => {
  if (brokers.length === 0)
    throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  dir = await makeTempDir('herald-retention-');
});

afterAll(async () => {
  await producer?.disconnect();
  await admin?.disconnect();
  await dir?.remove();
});

describe('presence agent behind the presence topic retention', () => {
  it('detects the skip, counts it, clears its bitmap and replays the topic into it', async () => {
    const prefix = `pres${tag}.`;
    const topic = prefix + TOPICS.presence;
    const meter = createPromMeter({ defaultMetrics: false });
    const logger = recordingLogger();
    const bus = await KafkaEventBus.connect({
      brokers,
      clientId: 'presence-1',
      topicPrefix: prefix,
      meter,
      logger,
      ...MOCK_TIMING,
    });
    const login = (uin: number, online: boolean, at = Date.now()) => ({
      key: String(uin),
      value: { uin, online, at },
      timestamp: at,
    });
    // Victims: users on partition `hit` who log out while the agent is away; steady users live on the other partitions.
    const hit = await partitionOf(topic, '1');
    const victims = await keysOn(topic, hit, 20, 1);
    const steady = await keysOn(topic, hit, 20, 1, true);
    const bitmap = new TypedArrayBitmap(2 ** 21);
    const generations: string[] = [];
    const start = (generation: string) =>
      startPresenceAgent({
        id: 'presence-1',
        bus,
        bitmap,
        generation,
        renewGeneration: async () => {
          generations.push(`g${generations.length + 2}`);
          return generations.at(-1)!;
        },
        notifyLogins: async () => undefined,
        logger,
        meter,
      });
    try {
      let agent = await start('g1');
      await bus.publish(
        TOPICS.presence,
        [...victims, ...steady].map((uin) => login(uin, true)),
      );
      await waitFor(() => [...victims, ...steady].every((uin) => bitmap.isOnline(uin)), {
        timeoutMs: 30_000,
        message: 'every user online',
      });
      await agent.close();

      // While the agent is away: the victims log out, then their partition is overrun past the logouts.
      await bus.publish(
        TOPICS.presence,
        victims.map((uin) => login(uin, false)),
      );
      const lastLogout = (await offsets(topic, hit)).high - 1n;
      const flood = await overrun(topic, hit, lastLogout, (i) => {
        const uin = 1_000_000 + i;
        return { key: String(uin), value: { uin, online: true, at: Date.now() } };
      });
      const marker = 2_000_000;
      await bus.publish(TOPICS.presence, [login(marker, true)]);

      // Resumed in group g1, whose committed offset on `hit` is below the log start now.
      agent = await start('g1');
      try {
        await waitFor(() => agent.rebuilds === 1, { timeoutMs: 30_000, message: 'the agent rebuilt its bitmap' });
        // Without the rebuild the victims stay online for good: their logouts were deleted unread.
        await waitFor(
          () =>
            victims.every((uin) => !bitmap.isOnline(uin)) &&
            steady.every((uin) => bitmap.isOnline(uin)) &&
            bitmap.isOnline(marker) &&
            bitmap.isOnline(1_000_000 + flood - 1),
          { timeoutMs: 60_000, message: 'the bitmap rebuilt from the topic' },
        );
        expect(agent.group).toBe('presence-presence-1-g2');
        expect(generations).toEqual(['g2']);
        const group = `${prefix}presence-presence-1-g1`;
        expect(await metric(meter, 'herald_event_consumer_skipped_total', { topic, group })).toBeGreaterThan(0);
        expect(await metric(meter, 'herald_presence_rebuilds_total', { agent: 'presence-1' })).toBe(1);
        const skipLine = logger.errors.find((e) => e.fields?.groupId === group);
        expect(skipLine?.fields).toMatchObject({ topic, partition: hit });
        expect(BigInt(skipLine!.fields!.to as string)).toBeGreaterThan(lastLogout);
        expect(logger.errors.some((e) => e.message.startsWith('presence events skipped'))).toBe(true);
      } finally {
        await agent.close();
      }
    } finally {
      await bus.close();
    }
  });
});

describe('follower copies behind the follows topic retention', () => {
  const database = `herald_test_retention_${tag}`;

  beforeAll(async () => {
    await migrate(MYSQL_URL, { database });
  });

  afterAll(async () => {
    const { createConnection } = await import('mysql2/promise');
    const conn = await createConnection({ uri: MYSQL_URL });
    await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await conn.end();
  });

  it('detects the skip, counts it, and rebuilds every copy from the followers table', async () => {
    const prefix = `fol${tag}.`;
    const topic = prefix + TOPICS.follows;
    const dataDir = join(dir.path, 'dispatcher');
    const tcp = (port: number) => `tcp://127.0.0.1:${port}`;
    const config = compileConfig({
      profile: 'production',
      dataDir,
      uinSpaceBits: 24,
      mysql: { url: MYSQL_URL, database, poolSize: 4 },
      kafka: { brokers, topicPrefix: prefix },
      zookeeper: { connectionString: '127.0.0.1:1' },
      curve: { keysDir: '/nonexistent' },
      topology: {
        schedulers: [{ id: 'scheduler-1', endpoint: tcp(1) }],
        dispatchers: [{ id: 'dispatcher-1', endpoint: tcp(2) }],
        executors: [{ id: 'executor-1', endpoint: tcp(3) }],
        presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/none', executors: ['executor-1'] }],
      },
      audiences: { followEvents: true, followerCopyThreshold: 1 },
    });
    const meter = createPromMeter({ defaultMetrics: false });
    const logger = recordingLogger();
    const change = (uin: number, following: boolean, accountId = 'acme') => ({
      accountId,
      uin,
      following,
      at: Date.now(),
    });
    const event = (c: ReturnType<typeof change>) => ({ key: String(c.uin), value: c, timestamp: c.at });
    const hit = await partitionOf(topic, '1');
    const [gone, ...kept] = await keysOn(topic, hit, 10, 1);

    // acme's followers in the table, and a copy made from them.
    const table = await MySqlFollowerStore.open({ url: MYSQL_URL, database, poolSize: 1 });
    await table.applyFollows([gone!, ...kept].map((uin) => change(uin, true)));
    const copies = new FollowerCopies(join(dataDir, 'follower-copies'));
    const listPath = join(dir.path, 'acme-followers.hrl');
    await writeRecipientListFile(
      listPath,
      Uint32Array.from([gone!, ...kept]).sort(),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );
    await copies.install('acme', listPath);
    const resources = new Resources();
    const bus = await KafkaEventBus.connect({
      brokers,
      clientId: 'follows-producer',
      topicPrefix: prefix,
      ...MOCK_TIMING,
    });
    try {
      // The dispatcher's copies group, live up to here (with the mock's short session, so the restart below joins at once).
      const live = await applyFollowEvents({ bus, store: copies, group: 'herald-follower-copies-dispatcher-1' });
      const changesFile = join(dataDir, 'follower-copies', 'acme.changes');
      await bus.publish(TOPICS.follows, [event(change(500, true, 'other')), event(change(kept[0]!, true))]);
      await waitFor(async () => (await readFile(changesFile, 'utf8')).includes(`"uin":${kept[0]}`), {
        timeoutMs: 30_000,
        message: 'the copies group caught up',
      });
      await live.close();

      // While the dispatcher is away: `gone` unfollows, and the table has it (the interface's group, which kept up, applied it);
      // then the partition is overrun past the event.
      const unfollow = change(gone!, false);
      await bus.publish(TOPICS.follows, [event(unfollow)]);
      await table.applyFollows([unfollow]);
      const lastChange = (await offsets(topic, hit)).high - 1n;
      await overrun(topic, hit, lastChange, (i) => {
        const c = change(5_000 + i, true, 'other');
        return { key: String(c.uin), value: c };
      });

      // The dispatcher starts again, with the production wiring: its copies group resumes below the log start.
      await openFilterSources(config, 'dispatcher-1', logger, meter, resources);
      const group = `${prefix}herald-follower-copies-dispatcher-1`;
      await waitFor(async () => (await metric(meter, 'herald_follow_resyncs_total')) >= 1, {
        timeoutMs: 60_000,
        message: 'the copies resynced',
      });
      // The copy's base is the table's followers now: without the resync it would still hold `gone` (its unfollow was deleted unread).
      const base = await loadRecipientList(join(dataDir, 'follower-copies', 'acme.hrl'), { uinLimit: 2 ** 24 });
      expect([...base]).toEqual([...kept].sort((a, b) => a - b));
      expect(await metric(meter, 'herald_event_consumer_skipped_total', { topic, group })).toBeGreaterThan(0);
      const skipLine = logger.errors.find((e) => e.fields?.groupId === group);
      expect(skipLine?.fields).toMatchObject({ topic, partition: hit });
      expect(BigInt(skipLine!.fields!.to as string)).toBeGreaterThan(lastChange);
    } finally {
      await bus.close();
      await resources.closeAll();
      await table.close();
    }
  });
});

describe('recovery from reports the retention cut', () => {
  it('refuses reports of a task whose partition lost records, and reads those of a task whose partition lost none', async () => {
    const prefix = `rep${tag}.`;
    const topic = prefix + TOPICS.reports;
    const source = { brokers, topicPrefix: prefix };
    const report = (taskId: number, from: number, to: number) => ({
      key: String(taskId),
      value: { taskId, unitNo: 0, from, to, delivered: to - from, offline: 0, executor: 'executor-1' },
      timestamp: Date.now(),
    });
    const bus = await KafkaEventBus.connect({
      brokers,
      clientId: 'reports-producer',
      topicPrefix: prefix,
      ...MOCK_TIMING,
    });
    const hit = await partitionOf(topic, '1');
    const [cut] = await keysOn(topic, hit, 1, 1);
    const [whole] = await keysOn(topic, hit, 1, 1, true);
    try {
      await bus.publish(TOPICS.reports, [report(cut!, 0, 5), report(whole!, 0, 7)]);

      const lastReport = (await offsets(topic, hit)).high - 1n;
      await overrun(topic, hit, lastReport, (i) => report(100_000 + i, 0, 1));

      const error = await readTaskReports(source, cut!).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReportsIncompleteError);
      expect(error).toBeInstanceOf(ReportsMismatchError);
      expect((error as ReportsIncompleteError).details).toMatchObject({
        reason: 'reports_deleted',
        taskId: cut,
        partition: hit,
      });
      // Another partition lost nothing: its task's reports are all there.
      expect(await readTaskReports(source, whole!)).toEqual([
        expect.objectContaining({ taskId: whole, from: 0, to: 7 }),
      ]);
    } finally {
      await bus.close();
    }
  });
});
