import { randomBytes } from 'node:crypto';
import { ConfigError, ErrorCodes, isHeraldError } from '@herald/core';
import type { BusEvent, ConsumedEvent, Logger } from '@herald/core/ports';
import { eventBusConformance, FaultySockets, freePort, rejectsWithCode, waitFor } from '@herald/testing';
import { KafkaEventBus } from './kafka-event-bus';
import type { KafkaEventBusOptions } from './options';

const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);

/**
 * Consumer group timing for librdkafka's mock cluster: it holds a new group's
 * first join for 3 s and paces rebalances by the session timeout, so shorter
 * sessions and heartbeats keep the tests quick.
 */
const MOCK_TIMING: Partial<KafkaEventBusOptions> = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
};

const unique = (tag: string) => `${tag}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

beforeAll(() => {
  if (brokers.length === 0)
    throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
});

eventBusConformance('KafkaEventBus', async () => ({
  store: await KafkaEventBus.connect({ brokers, clientId: unique('conformance'), ...MOCK_TIMING }),
  cleanup: async () => undefined,
}));

describe('KafkaEventBus', () => {
  it('fails to connect to a port nothing listens on with a one-line ConfigError naming kafka.brokers', async () => {
    const port = await freePort();
    // Past the deadline, while kafkajs is still retrying: the message says why, from kafkajs's last complaint.
    const late = await rejectsWithCode(
      KafkaEventBus.connect({ brokers: [`127.0.0.1:${port}`], clientId: 'nobody-home', connectTimeoutMs: 500 }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(late).toBeInstanceOf(ConfigError);
    expect(late.details).toEqual({ setting: 'kafka.brokers' });
    expect(late.message).toMatch(
      new RegExp(
        `^config kafka\\.brokers: cannot connect to Kafka at 127\\.0\\.0\\.1:${port}: no answer within 500 ms \\(last error: .*ECONNREFUSED`,
      ),
    );
    expect(late.message).not.toContain('\n');
    expect(late.retriable).toBe(false);
    // kafkajs giving up first (its retries spent before the deadline): its own error is the reason.
    const early = await rejectsWithCode(
      KafkaEventBus.connect({
        brokers: [`127.0.0.1:${port}`],
        clientId: 'nobody-home',
        connectTimeoutMs: 5_000,
        retries: 1,
        initialRetryMs: 50,
      }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(early.details).toEqual({ setting: 'kafka.brokers' });
    expect(early.message).toMatch(/ECONNREFUSED/);
    expect(early.message).not.toContain('\n');
  });

  it('rejects bad options with a ConfigError naming the setting', async () => {
    const cases: Array<[Partial<KafkaEventBusOptions>, string]> = [
      [{ brokers: [] }, 'kafka.brokers'],
      [{ brokers: ['no-port'] }, 'kafka.brokers'],
      [{ clientId: '' }, 'kafka.clientId'],
      [{ topicPrefix: 'bad prefix' }, 'kafka.topicPrefix'],
      [{ partitions: 0 }, 'kafka.partitions'],
      [{ connectTimeoutMs: -1 }, 'kafka.connectTimeoutMs'],
      [{ heartbeatIntervalMs: 10_000, sessionTimeoutMs: 6_000 }, 'kafka.heartbeatIntervalMs'],
    ];
    for (const [patch, setting] of cases) {
      const error = await rejectsWithCode(
        KafkaEventBus.connect({ brokers, clientId: 'bad-options', ...patch }),
        ErrorCodes.CONFIG_INVALID,
      );
      expect(error.details).toEqual({ setting });
    }
  });

  it('prefixes topic and group names, and reports topics without the prefix', async () => {
    const prefix = `${unique('p')}.`;
    const logged: string[] = [];
    const logger: Logger = {
      debug: (m) => logged.push(m),
      info: (m) => logged.push(m),
      warn: (m) => logged.push(m),
      error: (m) => logged.push(m),
    };
    const prefixed = await KafkaEventBus.connect({
      brokers,
      clientId: 'prefixed',
      topicPrefix: prefix,
      logger,
      ...MOCK_TIMING,
    });
    const plain = await KafkaEventBus.connect({ brokers, clientId: 'plain', ...MOCK_TIMING });
    try {
      const viaPrefix: ConsumedEvent[] = [];
      const viaFullName: ConsumedEvent[] = [];
      await prefixed.subscribe('t', 'g', async (events) => void viaPrefix.push(...events), { fromBeginning: true });
      await plain.subscribe(`${prefix}t`, 'other', async (events) => void viaFullName.push(...events), {
        fromBeginning: true,
      });
      await prefixed.publish('t', [{ key: 'k', value: 1, timestamp: 5 }]);
      await waitFor(() => viaPrefix.length === 1 && viaFullName.length === 1, {
        timeoutMs: 40_000,
        message: 'the event under both names',
      });
      expect(viaPrefix[0]!.topic).toBe('t');
      expect(viaFullName[0]!.topic).toBe(`${prefix}t`);
      expect(logged.some((line) => line.startsWith('kafkajs '))).toBe(true);
    } finally {
      await Promise.all([prefixed.close(), plain.close()]);
    }
  });
});

/**
 * Checks one key's received sequence numbers against "at least once, in
 * order": each event is the next one (previous + 1) or a step back to an
 * event already received, after which the earlier run repeats exactly; no
 * number is ever skipped, and 0..count-1 all arrive. Returns what is wrong.
 */
function orderViolations(key: string, seqs: readonly number[], count: number): string[] {
  const problems: string[] = [];
  let max = -1;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    const prev = i === 0 ? -1 : seqs[i - 1]!;
    if (seq > max + 1) problems.push(`${key}: ${seq} arrived after ${max} (events ${max + 1}..${seq - 1} skipped)`);
    else if (seq !== prev + 1 && seq > prev)
      problems.push(`${key}: ${seq} after ${prev} inside a redelivered run (not an exact repeat)`);
    max = Math.max(max, seq);
  }
  if (max !== count - 1) problems.push(`${key}: last event received is ${max}, expected ${count - 1}`);
  return problems;
}

describe('orderViolations (the fault test checker)', () => {
  it('accepts exact order and exact repeats of earlier runs, and flags gaps, reordering and loss', () => {
    expect(orderViolations('k', [0, 1, 2, 3], 4)).toEqual([]);
    expect(orderViolations('k', [0, 1, 2, 1, 2, 3, 0, 1, 2, 3], 4)).toEqual([]);
    expect(orderViolations('k', [0, 2, 1, 3], 4)).not.toEqual([]);
    expect(orderViolations('k', [0, 1, 3, 2], 4)).not.toEqual([]);
    expect(orderViolations('k', [0, 1, 2, 0, 2, 3], 4)).not.toEqual([]);
    expect(orderViolations('k', [0, 1, 2], 4)).not.toEqual([]);
    expect(orderViolations('k', [1, 2, 3], 4)).not.toEqual([]);
  });
});

describe('KafkaEventBus under broker faults', () => {
  it('a Kafka broker connection dropped: relays resume without losing or reordering events', async () => {
    const sockets = new FaultySockets();
    const bus = await KafkaEventBus.connect({
      brokers,
      clientId: unique('faults'),
      socketFactory: sockets.socketFactory,
      ...MOCK_TIMING,
      // Short kafkajs retries, so a publish during a cut fails (retriable) and the publisher's own retry runs.
      retries: 2,
      initialRetryMs: 100,
      maxRetryMs: 500,
      requestTimeoutMs: 5_000,
    });
    const topic = unique('faults');
    const keys = Array.from({ length: 6 }, (_, i) => `key${i}`);
    const received = new Map<string, number[]>(keys.map((k) => [k, []]));
    const next = new Map(keys.map((k) => [k, 0]));
    const highest = new Map(keys.map((k) => [k, -1]));
    let receivedTotal = 0;
    let distinctReceived = 0;
    let publishedTotal = 0;
    let failedPublishes = 0;
    let publisherError: unknown;
    let publisherWaiting = false;
    /** The first event that arrived before an earlier one of its key: lost or reordered. */
    let firstGap: string | undefined;
    let stop = false;
    let publisher: Promise<void> = Promise.resolve();

    const failed = () => publisherError !== undefined || firstGap !== undefined;
    function check(): void {
      if (publisherError !== undefined) throw publisherError;
      expect(firstGap).toBeUndefined();
    }
    /** Waits until `count` more events arrived while the publisher is publishing; fails at once on a gap or a dead publisher. */
    async function flowing(count: number, message: string): Promise<void> {
      const target = receivedTotal + count;
      await waitFor(() => failed() || (receivedTotal >= target && !publisherWaiting), { timeoutMs: 45_000, message });
      check();
    }

    try {
      await bus.subscribe(
        topic,
        unique('relay'),
        async (events) => {
          for (const event of events) {
            const seq = (event.value as { seq: number }).seq;
            received.get(event.key)!.push(seq);
            if (seq === highest.get(event.key)! + 1) {
              highest.set(event.key, seq);
              distinctReceived++;
            } else if (seq > highest.get(event.key)! + 1) {
              firstGap ??= `${event.key}: ${seq} arrived before ${highest.get(event.key)! + 1}`;
            }
          }
          receivedTotal += events.length;
        },
        { fromBeginning: true, retryDelayMs: 50 },
      );

      // The publisher: batches of 2 events per key, each published until accepted, in order, retrying
      // retriable failures at once (kafkajs backs off inside each attempt), as the controller's relay does.
      // It waits while the consumer is more than 4,000 events behind (the mock's group rejoin after a cut
      // takes seconds), so the backlog left to drain at the end stays small.
      publisher = (async () => {
        while (!stop) {
          if (publishedTotal - distinctReceived > 4_000) {
            publisherWaiting = true;
            await waitFor(() => stop || firstGap !== undefined || publishedTotal - distinctReceived <= 2_000, {
              timeoutMs: 60_000,
              message: 'the consumer to catch up',
            });
            publisherWaiting = false;
            continue;
          }
          const batch: BusEvent[] = [];
          for (let n = 0; n < 2; n++) {
            for (const key of keys) {
              const seq = next.get(key)!;
              next.set(key, seq + 1);
              batch.push({ key, value: { seq }, timestamp: Date.now() });
            }
          }
          for (;;) {
            try {
              await bus.publish(topic, batch);
              break;
            } catch (error) {
              if (!isHeraldError(error) || !error.retriable) throw error;
              failedPublishes++;
            }
          }
          publishedTotal += batch.length;
        }
      })().catch((error: unknown) => {
        publisherError = error;
      });

      for (let round = 1; round <= 3; round++) {
        await flowing(60, `events flowing before cut ${round}`);
        const refusedBefore = sockets.refused;
        const failedBefore = failedPublishes;
        expect(sockets.cut()).toBeGreaterThan(0);
        // Stay cut until the clients have tried to reconnect and a publish has failed (to be retried in order).
        await waitFor(() => failed() || (sockets.refused >= refusedBefore + 3 && failedPublishes > failedBefore), {
          timeoutMs: 20_000,
          message: `reconnect attempts and a failed publish during cut ${round}`,
        });
        sockets.restore();
        check();
      }
      await flowing(60, 'events flowing after the last restore');
      stop = true;
      await publisher;
      check();

      await waitFor(() => firstGap !== undefined || keys.every((k) => highest.get(k) === next.get(k)! - 1), {
        timeoutMs: 45_000,
        message: 'every key up to its last event',
      });
      check();
      expect(keys.flatMap((k) => orderViolations(k, received.get(k)!, next.get(k)!))).toEqual([]);
      expect(sockets.cuts).toBe(3);
      expect(failedPublishes).toBeGreaterThanOrEqual(3);
      if (process.env.HERALD_TEST_VERBOSE) {
        console.log({
          published: publishedTotal,
          received: receivedTotal,
          duplicates: receivedTotal - publishedTotal,
          failedPublishes,
          destroyed: sockets.destroyed,
          refused: sockets.refused,
        });
      }
    } finally {
      stop = true;
      sockets.restore();
      await publisher;
      await bus.close();
    }
  });
});
