import { randomBytes } from 'node:crypto';
import { noopLogger, TOPICS, type BusEvent, type Meter } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import { KafkaEventBus } from '@herald/events-kafka';
import { waitFor } from '@herald/testing';
import { startPresenceAgent, type PresenceAgent } from './agent';
import { signPresenceEvent } from './presence-signature';

/**
 * Signed presence events through the real Kafka test broker (librdkafka's
 * mock cluster, HERALD_TEST_KAFKA_BROKERS): with presence.hmacKeyFile set, a
 * forged or unsigned login sets nobody online and is counted; a signed one
 * does. Without a key, old unsigned events are applied as before.
 */
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const MOCK_TIMING = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
};
const KEY = randomBytes(32);
const FORGER_KEY = randomBytes(32);

function countingMeter() {
  const counts = new Map<string, number>();
  const meter: Meter = {
    counter: (name) => ({
      inc: (labels = {}, n = 1) =>
        counts.set(`${name}${JSON.stringify(labels)}`, (counts.get(`${name}${JSON.stringify(labels)}`) ?? 0) + n),
    }),
    gauge: () => ({ set() {} }),
    histogram: () => ({ observe() {} }),
  };
  const read = (result: string) =>
    counts.get(`herald_presence_events_total${JSON.stringify({ agent: 'presence-1', result })}`) ?? 0;
  return { meter, read };
}

const login = (uin: number, value: object): BusEvent => ({ key: String(uin), value, timestamp: 1000 });
const signed = (key: Buffer, uin: number, online = true, at = 1000) =>
  login(uin, signPresenceEvent(key, { uin, online, at }));

let bus: KafkaEventBus;
let agent: PresenceAgent | undefined;

beforeAll(() => {
  if (brokers.length === 0)
    throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
});
beforeEach(async () => {
  // A topic prefix of its own: each test reads a presence topic only it wrote.
  const prefix = `signed-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}.`;
  bus = await KafkaEventBus.connect({
    brokers,
    clientId: 'signed-presence-test',
    topicPrefix: prefix,
    logger: noopLogger,
    ...MOCK_TIMING,
  });
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await bus.close();
});

async function start(bitmap: TypedArrayBitmap, hmacKey?: Buffer) {
  const counting = countingMeter();
  agent = await startPresenceAgent({
    id: 'presence-1',
    bus,
    bitmap,
    generation: 'g1',
    hmacKey,
    meter: counting.meter,
    notifyLogins: async () => undefined,
  });
  return counting;
}

describe('signed presence events on Kafka', () => {
  it('with a key: a forged or unsigned login sets nobody online and is counted; a signed one does', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const { read } = await start(bitmap, KEY);
    const tampered = { ...signPresenceEvent(KEY, { uin: 4, online: false, at: 1000 }), online: true };
    await bus.publish(TOPICS.presence, [
      login(1, { uin: 1, online: true, at: 1000 }), // version 1, as `kcat -P` would write it
      signed(FORGER_KEY, 2), // signed with another key
      login(4, tampered), // a signed logout turned into a login
      signed(KEY, 3), // the login service's
    ]);
    await waitFor(() => read('applied') === 1 && read('unsigned') === 1 && read('bad_signature') === 2, {
      message: 'one applied, one unsigned, two badly signed',
      timeoutMs: 30_000,
    });
    expect([1, 2, 3, 4].map((uin) => bitmap.isOnline(uin))).toEqual([false, false, true, false]);
  });

  it('without a key: unsigned (version 1) and signed events are both applied, as before', async () => {
    const bitmap = new TypedArrayBitmap(1024);
    const { read } = await start(bitmap);
    await bus.publish(TOPICS.presence, [login(5, { uin: 5, online: true, at: 1000 }), signed(KEY, 6)]);
    await waitFor(() => read('applied') === 2, { message: 'both applied', timeoutMs: 30_000 });
    expect([bitmap.isOnline(5), bitmap.isOnline(6)]).toEqual([true, true]);
    expect(read('unsigned') + read('bad_signature')).toBe(0);
  });
});
