import { syntheticAudience } from '@herald/audience';
import { compileConfig, DEFAULTS, type HeraldOptions } from '@herald/core/config';
import type { Delivery, DeliveryGateway } from '@herald/core/ports';
import { encodeRecipientList } from '@herald/core/recipient-list';
import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { KafkaDeliveryGateway } from '@herald/events-kafka';
import { pacedChannel } from '@herald/executor';
import {
  authHeaders,
  FaultySockets,
  KafkaDeliveryConsumer,
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  type TempDir,
} from '@herald/testing';
import { openDeliveryGateway } from '../src/delivery';

const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);

/**
 * The Kafka topic channel end to end: the executor's gateway chosen from
 * `delivery.kind: 'kafka'` (the production profile's openDeliveryGateway,
 * paced like every channel) under an embedded cluster, a 10^4-recipient
 * broadcast, and the reference consumer reading the topic: it sees exactly
 * the online recipients, each record as the contract says.
 */
describe('broadcast through the Kafka topic channel', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let consumer: KafkaDeliveryConsumer;
  const topic = `broadcast-${process.pid}-${Date.now().toString(36)}`;
  const uinSpaceBits = 24;
  const audience = syntheticAudience({
    recipients: 10_000,
    onlineFraction: 0.4,
    uinLimit: 2 ** uinSpaceBits,
    seed: 20,
  });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    if (brokers.length === 0) throw new Error('HERALD_TEST_KAFKA_BROKERS not set (the jest global setup starts it)');
    dir = await makeTempDir('herald-kafka-delivery-');
    const options: HeraldOptions = {
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { batchSize: 1000, unitSize: 5000 },
      delivery: { kind: 'kafka', kafka: { brokers, topic, keyShiftBits: 16 } },
    };
    const gateway = await openDeliveryGateway(compileConfig(options), 'executor-1', dir.path);
    cluster = await startEmbeddedCluster(options, { gateway });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
  });

  afterAll(async () => {
    await cluster?.stop();
    await consumer?.stop();
    await dir?.remove();
  });

  it('delivers to exactly the online recipients, in records keyed by uin range', async () => {
    const task = await broadcast(cluster, audience.list, 'through kafka');
    const { id } = task;
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);

    await consumer.caughtUp();
    expect(consumer.uinsOf(id)).toEqual([...online]);
    const records = consumer.records.filter((r) => (r.value as { taskId: number }).taskId === id);
    for (const record of records) {
      for (const uin of (record.value as { uins: number[] }).uins) expect(String(uin >>> 16)).toBe(record.key);
      expect(record.headers['idempotency-key']).toMatch(new RegExp(`^${id}:P:\\d+:\\d+:\\d+$`));
    }
    // At least once: a batch is delivered again only after a failure, and this run had none.
    expect(records.reduce((n, r) => n + (r.value as { uins: number[] }).uins.length, 0)).toBe(online.length);
  });
});

describe('broadcast through the Kafka topic channel while its brokers are out of reach', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;
  let consumer: KafkaDeliveryConsumer;
  const sockets = new FaultySockets();
  const topic = `outage-${process.pid}-${Date.now().toString(36)}`;
  const uinSpaceBits = 20;
  const audience = syntheticAudience({ recipients: 5_000, onlineFraction: 0.5, uinLimit: 2 ** uinSpaceBits, seed: 21 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));
  let failures = 0;

  beforeAll(async () => {
    dir = await makeTempDir('herald-kafka-outage-');
    const kafka = await KafkaDeliveryGateway.connect({
      brokers,
      topic,
      clientId: 'outage',
      timeoutMs: 1_000,
      socketFactory: sockets.socketFactory,
    });
    const counted: DeliveryGateway = {
      deliver: (delivery: Delivery) =>
        kafka.deliver(delivery).catch((error: unknown) => {
          failures++;
          throw error;
        }),
      close: () => kafka.close(),
    };
    const pacing = { ...DEFAULTS.delivery.webhook.pacing, breakerOpenMs: 300, maxHoldMs: 60_000 };
    const gateway = pacedChannel('kafka', counted, { maxAttempts: 2, retryDelayMs: 20, pacing });
    cluster = await startEmbeddedCluster(
      {
        dataDir: dir.path,
        uinSpaceBits,
        http: { port: 0 },
        auth: TEST_AUTH_OPTIONS,
        tasks: TEST_TASK_OPTIONS,
        dispatcher: { batchSize: 500, unitSize: 2500 },
      },
      { gateway },
    );
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
  });

  afterAll(async () => {
    sockets.restore();
    await cluster?.stop();
    await consumer?.stop();
    await dir?.remove();
  });

  it('holds sending while produces fail, then completes with every online recipient', async () => {
    sockets.cut();
    const ending = broadcast(cluster, audience.list, 'after the outage');
    await waitFor(() => failures >= 3, { timeoutMs: 30_000, message: 'produces failing while the brokers are cut' });
    sockets.restore();
    const task = await ending;
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    await consumer.caughtUp();
    // At least once: a produce that timed out may have been written; every online recipient is there, no one else.
    expect(consumer.uinsOf(task.id)).toEqual([...online]);
  });
});

/** Uploads the list, creates a task with `body` for it, and waits for the task to end. */
async function broadcast(cluster: EmbeddedCluster, list: ArrayLike<number>, body: string): Promise<Task> {
  const listed = await fetch(`${cluster.url}/api/v1/lists?accountId=acme`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...authHeaders() },
    body: encodeRecipientList(list),
  });
  const { id: listId } = (await listed.json()) as { id: string };
  const created = await fetch(`${cluster.url}/api/v1/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({ accountId: 'acme', listId, content: { body } }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as Task;
  let task: Task | undefined;
  await waitFor(
    async () => {
      task = await cluster.store.getTask(id);
      return task !== undefined && ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
    },
    { timeoutMs: 90_000, intervalMs: 50, message: `task ${id} ending (last: ${task?.state})` },
  );
  return task!;
}
