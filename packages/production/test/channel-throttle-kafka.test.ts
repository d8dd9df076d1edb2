import { syntheticAudience } from '@herald/audience';
import {
  KafkaDeliveryConsumer,
  makeTempDir,
  ProcessCluster,
  type RateLimitedAnswer,
  settledSending,
  type TempDir,
} from '@herald/testing';
import { startWithAudience, tearDown, uniqueNames } from './scenario';
import { broadcastToEnd, THROTTLE_CLUSTER } from './throttle-broadcast';

const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);

/**
 * The channel's configured maxRate. Not the 20k/s: on this 2-core
 * machine under load a production cluster sends some 17-20k recipients/s
 * end to end whatever the bound (measured: 16,923/s with maxRate 40,000 at
 * load 18), so a 20k/s bound would hold by itself and the test could not
 * fail. At 5k/s the bound is what holds the rate, and 10^5 recipients take
 * some 18 s, so the first 10 s can be left out.
 */
const MAX_RATE = 5_000;
const SETTLE_MS = 10_000;

/**
 * Issue 20's throttle test for the Kafka topic channel, on the production
 * profile. A Kafka broker never answers "too many" the way a push service's
 * 429 does: a produce quota delays the broker's answer (the pacing sees
 * latency), and librdkafka's mock cluster (the tests' broker) enforces no
 * quota at all (docs/delivery.md, "The Kafka topic"). So the limit here is
 * the channel's configured `maxRate` (MAX_RATE), the whole budget of both executors:
 * two executors, each its own process, broadcast 10^5 recipients; the
 * reference consumer reads every online recipient (each record once: no
 * produce failed, so nothing went twice), and the send rate the records'
 * own timestamps show after the first SETTLE_MS is not above the budget by
 * more than 20% (each executor pacing to the whole budget would send up to
 * twice it). How close below it comes depends on the machine's load: a
 * timing, so reported (bench/RESULTS.md), not asserted.
 */
jest.setTimeout(240_000);

describe('production profile: a broadcast through the Kafka topic held to its maxRate', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let consumer: KafkaDeliveryConsumer;
  const names = uniqueNames('kafkarate');
  const topic = `delivery-${names.tag}`;
  const audience = syntheticAudience({ recipients: 100_000, onlineFraction: 0.9, uinLimit: 2 ** 24, seed: 20 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    if (brokers.length === 0) throw new Error('HERALD_TEST_KAFKA_BROKERS not set (the jest global setup starts it)');
    dir = await makeTempDir('herald-production-kafka-rate-');
    // The consumer first: its subscription creates the topic, which Herald never asks for.
    consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
      names,
    );
    await startWithAudience(cluster, audience, {
      delivery: {
        kind: 'kafka',
        kafka: { brokers, topic, timeoutMs: 10_000, pacing: { minRate: 1000, maxRate: MAX_RATE } },
      },
      ...THROTTLE_CLUSTER,
    });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await consumer?.stop();
  });

  /** One of an executor's kafka channel counters, from its management endpoint. */
  async function channelCount(id: string, metric: string): Promise<number> {
    const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
      headers: cluster.managementHeaders(),
    });
    const line = (await response.text()).split('\n').find((l) => l.startsWith(`${metric}{channel="kafka"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  it('completes exact, each record once, at no more than the configured rate', async () => {
    const task = await broadcastToEnd(cluster, audience, 'paced kafka');

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    await consumer.caughtUp();
    expect(consumer.uinsOf(task.id)).toEqual([...online]);
    const records = consumer.records.filter((r) => (r.value as { taskId: number }).taskId === task.id);
    let failed = 0;
    let throttled = 0;
    for (const id of cluster.ids('executor')) {
      failed += await channelCount(id, 'herald_channel_failed_total');
      throttled += await channelCount(id, 'herald_channel_throttled_total');
    }
    // At least once: a record is written twice only after a produce failed, and none did; nothing throttles a topic.
    expect([failed, throttled]).toEqual([0, 0]);
    expect(records.reduce((n, r) => n + (r.value as { uins: number[] }).uins.length, 0)).toBe(online.length);

    // The send rate from the records' own times: a topic accepts all, so every record counts as accepted.
    const log: RateLimitedAnswer[] = records
      .map((r) => ({ at: r.timestamp, recipients: (r.value as { uins: number[] }).uins.length, throttled: false }))
      .sort((a, b) => a.at - b.at);
    const settled = settledSending(log, SETTLE_MS);
    expect(settled.recipientsPerSecond).toBeLessThanOrEqual(1.2 * MAX_RATE);
    // Some 8 s of the broadcast, about 80 records of 500 recipients, are measured (at twice the rate, some 12).
    expect(settled.requests).toBeGreaterThan(50);
    process.stdout.write(
      `kafka maxRate: ${records.length} records; after ${SETTLE_MS} ms ${settled.requests} records, ` +
        `${Math.round(settled.recipientsPerSecond)} recipients/s\n`,
    );
  });
});
