import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { ConfigError, ErrorCodes } from '@herald/core';
import {
  deliveryGatewayConformance,
  FaultySockets,
  freePort,
  KafkaDeliveryConsumer,
  rejectsWithCode,
} from '@herald/testing';
import { KafkaJSProtocolError } from 'kafkajs';
import { KafkaDeliveryGateway, produceOutcome, type KafkaDeliveryGatewayOptions } from './kafka-delivery-gateway';

const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (brokers.length === 0)
  throw new Error('HERALD_TEST_KAFKA_BROKERS not set (the jest global setup starts the test broker)');

/** A topic of its own per test: the mock keeps every topic for the run. */
const uniqueTopic = () =>
  `delivery-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

const connect = (topic: string, extra: Partial<KafkaDeliveryGatewayOptions> = {}) =>
  KafkaDeliveryGateway.connect({ brokers, topic, clientId: 'delivery-test', timeoutMs: 5_000, ...extra });

const content = { body: 'Hello from Herald', title: 'Greeting' };

// One record per batch (every uin in one key range), so what the consumer reads is the batches as delivered.
deliveryGatewayConformance('KafkaDeliveryGateway', async () => {
  const topic = uniqueTopic();
  const gateway = await connect(topic, { keyShiftBits: 32 });
  const consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
  return {
    gateway,
    received: async () => {
      await consumer.caughtUp();
      return consumer.deliveries();
    },
    dispose: () => consumer.stop(),
  };
});

describe('KafkaDeliveryGateway records', () => {
  const schema = JSON.parse(
    readFileSync(join(__dirname, '../../../docs/schemas/delivery-record.schema.json'), 'utf8'),
  ) as object;
  const validate = new Ajv({ allErrors: true }).compile(schema);
  let topic: string;
  let gateway: KafkaDeliveryGateway;
  let consumer: KafkaDeliveryConsumer;

  beforeEach(async () => {
    topic = uniqueTopic();
    gateway = await connect(topic, { keyShiftBits: 20, maxRecordBytes: 4096 });
    consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
  });
  afterEach(async () => {
    await gateway.close();
    await consumer.stop();
  });

  it('keys each record by uin range, carries the idempotency key, and matches the JSON Schema', async () => {
    const uins = Uint32Array.from([1, 2, (1 << 20) + 5, 3 << 20, 0xffffffff]);
    await gateway.deliver({ taskId: 7, uins, content, atLogin: false, displayAt: 1_800_000_000_000 });
    const template = { body: 'Hi {{region}}', template: true as const };
    await gateway.deliver({
      taskId: 8,
      uins: Uint32Array.of(9, 10),
      content: template,
      contents: [{ body: 'Hi gd' }, { body: 'Hi sh' }],
      atLogin: true,
    });
    await consumer.caughtUp();
    for (const record of consumer.records)
      expect({ value: record.value, valid: validate(record.value) }).toEqual({
        value: record.value,
        valid: true,
      });
    const task7 = consumer.records.filter((r) => (r.value as { taskId: number }).taskId === 7);
    expect(task7.map((r) => r.key).sort()).toEqual(['0', '1', '3', '4095']);
    for (const record of task7) {
      expect(record.headers).toEqual({ 'idempotency-key': '7:P:1:4294967295:5', 'content-type': 'application/json' });
      for (const uin of (record.value as { uins: number[] }).uins) expect(String(uin >>> 20)).toBe(record.key);
    }
    expect(consumer.uinsOf(7)).toEqual([...uins]);
    const task8 = consumer.records.filter((r) => (r.value as { taskId: number }).taskId === 8);
    expect(task8.map((r) => [r.key, r.headers['idempotency-key'], r.value])).toEqual([
      [
        '0',
        '8:L:9:10:2',
        {
          v: 1,
          taskId: 8,
          atLogin: true,
          displayAt: null,
          content: template,
          uins: [9, 10],
          contents: [{ body: 'Hi gd' }, { body: 'Hi sh' }],
        },
      ],
    ]);
  });

  it('splits a batch larger than maxRecordBytes into records that each fit, losing no recipient', async () => {
    const uins = Uint32Array.from({ length: 3000 }, (_, i) => 100_000 + i);
    await gateway.deliver({ taskId: 11, uins, content, atLogin: false });
    await consumer.caughtUp();
    expect(consumer.records.length).toBeGreaterThan(1);
    for (const record of consumer.records)
      expect(Buffer.byteLength(JSON.stringify(record.value))).toBeLessThanOrEqual(4096);
    expect(consumer.uinsOf(11)).toEqual([...uins]);
  });

  it('refuses a batch one recipient of which needs a record over maxRecordBytes, sending none of it', async () => {
    const error = await rejectsWithCode(
      gateway.deliver({ taskId: 12, uins: Uint32Array.of(1, 2), content: { body: 'x'.repeat(5000) }, atLogin: false }),
      ErrorCodes.DELIVERY_REJECTED,
    );
    expect(error.retriable).toBe(false);
    expect(error.message).toContain('delivery.kafka.maxRecordBytes');
    await gateway.deliver({ taskId: 13, uins: Uint32Array.of(1), content, atLogin: false });
    await consumer.caughtUp();
    expect(consumer.uinsOf(12)).toEqual([]);
    expect(consumer.uinsOf(13)).toEqual([1]);
  });
});

describe('KafkaDeliveryGateway outcomes', () => {
  it('rejects UNAVAILABLE, retriable, while no broker can be reached, and delivers again once one can', async () => {
    const sockets = new FaultySockets();
    const topic = uniqueTopic();
    const gateway = await connect(topic, { socketFactory: sockets.socketFactory, timeoutMs: 1_500, keyShiftBits: 32 });
    const consumer = await KafkaDeliveryConsumer.start({ brokers, topic });
    try {
      sockets.cut();
      const error = await rejectsWithCode(
        gateway.deliver({ taskId: 21, uins: Uint32Array.of(1, 2), content, atLogin: false }),
        ErrorCodes.UNAVAILABLE,
      );
      expect(error.retriable).toBe(true);
      expect(error.details).toMatchObject({ taskId: 21, idempotencyKey: '21:P:1:2:2' });
      sockets.restore();
      await gateway.deliver({ taskId: 21, uins: Uint32Array.of(1, 2), content, atLogin: false });
      await consumer.caughtUp();
      expect(consumer.uinsOf(21)).toEqual([1, 2]);
    } finally {
      await gateway.close();
      await consumer.stop();
    }
  });

  it.each([
    ['MESSAGE_TOO_LARGE', 10, false, ErrorCodes.DELIVERY_REJECTED],
    ['RECORD_LIST_TOO_LARGE', 18, false, ErrorCodes.DELIVERY_REJECTED],
    ['THROTTLING_QUOTA_EXCEEDED', 89, true, ErrorCodes.DELIVERY_THROTTLED],
    ['NOT_LEADER_FOR_PARTITION', 6, true, ErrorCodes.UNAVAILABLE],
    ['TOPIC_AUTHORIZATION_FAILED', 29, false, ErrorCodes.UNAVAILABLE],
  ])(
    'takes a broker answer %s (code %d, retriable %s, wrapped as kafkajs wraps it) as %s',
    (type, code, retriable, expected) => {
      // kafkajs builds it from its table of broker error codes (its typings only admit an Error).
      const answer = { name: 'KafkaJSProtocolError', type, code, retriable, message: `the broker said ${type}` };
      const protocol = new KafkaJSProtocolError(answer as Error);
      // kafkajs's KafkaJSNumberOfRetriesExceeded: not retriable itself, the broker's answer its cause.
      const wrapped = Object.assign(new Error(protocol.message), {
        name: 'KafkaJSNumberOfRetriesExceeded',
        retriable: false,
        cause: protocol,
      });
      const outcome = produceOutcome(wrapped, 'batch', { taskId: 1 }, 1000);
      expect(outcome).toMatchObject({ code: expected, details: { taskId: 1, type } });
      expect(outcome.retriable).toBe(expected !== ErrorCodes.DELIVERY_REJECTED);
      expect(outcome.message).toContain(type);
    },
  );

  it('fails to connect to a port nothing listens on with a one-line ConfigError naming delivery.kafka.brokers', async () => {
    const port = await freePort();
    const error = await rejectsWithCode(
      KafkaDeliveryGateway.connect({ brokers: [`127.0.0.1:${port}`], topic: 't', clientId: 'nobody', timeoutMs: 500 }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.details).toEqual({ setting: 'delivery.kafka.brokers' });
    expect(error.message).not.toContain('\n');
  });

  it.each([
    [{ brokers: [], topic: 't' }, 'delivery.kafka.brokers'],
    [{ brokers, topic: 'no spaces' }, 'delivery.kafka.topic'],
  ])('refuses %j before connecting, naming %s', async (options, setting) => {
    const error = await rejectsWithCode(
      KafkaDeliveryGateway.connect({ clientId: 'x', ...options }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(error.details).toEqual({ setting });
  });
});
