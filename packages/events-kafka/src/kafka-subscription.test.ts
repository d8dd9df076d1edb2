import { EventEmitter } from 'node:events';
import { KafkaJSProtocolError, type Admin, type Consumer, type Kafka } from 'kafkajs';
import { ErrorCodes } from '@herald/core';
import { KafkaSubscription, type SubscriptionShared, type SubscriptionSpec } from './kafka-subscription';
import { compileOptions } from './options';

/**
 * A subscription's first join, against consumers scripted to fail their
 * `run` with a given protocol error or to join. The real broker's behaviour
 * (groups, rebalances, holes) is covered by kafka-event-bus.test.ts.
 */
const protocolError = (type: string, code: number) =>
  new KafkaJSProtocolError({ message: `refused: ${type}`, type, code, retriable: false } as unknown as string);

const EVENTS = { GROUP_JOIN: 'join', CRASH: 'crash', FETCH_START: 'fetch' };

/** A kafkajs Consumer whose `run` fails with `error`, or joins its group when there is none. */
function scriptedConsumer(error: Error | undefined): Consumer {
  const emitter = new EventEmitter();
  const consumer = {
    events: EVENTS,
    on: (event: string, listener: (e: unknown) => void) => {
      emitter.on(event, listener);
      return () => emitter.off(event, listener);
    },
    connect: async () => undefined,
    subscribe: async () => undefined,
    disconnect: async () => undefined,
    run: async () => {
      if (error !== undefined) throw error;
      setImmediate(() => emitter.emit(EVENTS.GROUP_JOIN, { payload: {} }));
    },
  };
  return consumer as unknown as Consumer;
}

/** Starts a subscription over consumers failing with `failures` in turn, then joining; answers how many were made. */
async function startOver(failures: Error[]) {
  let made = 0;
  const kafka = { consumer: () => scriptedConsumer(failures[made++]) } as unknown as Kafka;
  const admin = { fetchOffsets: async () => [], fetchTopicOffsets: async () => [] } as unknown as Admin;
  const counter = { inc: () => undefined };
  const shared = { admin, skips: counter, skipped: counter } as unknown as SubscriptionShared;
  const spec: SubscriptionSpec = {
    topic: 't',
    group: 'g',
    kafkaTopic: 'p.t',
    groupId: 'p.g',
    fromBeginning: true,
    retryDelayMs: 10,
    handler: async () => undefined,
    cleanup: 'delete',
  };
  const options = compileOptions({ brokers: ['127.0.0.1:9'], clientId: 'test', joinTimeoutMs: 5_000 });
  const started = KafkaSubscription.start(kafka, shared, options, spec, () => undefined);
  return { started, made: () => made };
}

describe('KafkaSubscription.start', () => {
  it('joins again with a new consumer when the group refuses a sync with INVALID_REQUEST', async () => {
    const { started, made } = await startOver([protocolError('INVALID_REQUEST', 42)]);
    const subscription = await started;
    expect(made()).toBe(2);
    await subscription.close();
  });

  it('gives up after three refused joins, with the refusal', async () => {
    const refused = () => protocolError('INVALID_REQUEST', 42);
    const { started, made } = await startOver([refused(), refused(), refused(), refused()]);
    await expect(started).rejects.toMatchObject({ code: ErrorCodes.INTERNAL, details: { type: 'INVALID_REQUEST' } });
    expect(made()).toBe(3);
  });

  it('fails at once on any other refusal', async () => {
    const { started, made } = await startOver([protocolError('GROUP_AUTHORIZATION_FAILED', 30)]);
    await expect(started).rejects.toMatchObject({ details: { type: 'GROUP_AUTHORIZATION_FAILED' } });
    expect(made()).toBe(1);
  });
});
