import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { TOPICS, type ConsumedEvent, type Coordinator, type Meter } from '@herald/core/ports';
import type { Task, TaskEvent, TaskState } from '@herald/core/task';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { KafkaEventBus, type KafkaEventBusOptions } from '@herald/events-kafka';
import { migrate, MySqlTaskStore } from '@herald/store-mysql';
import { FaultySockets, newTask, waitFor, type WaitForOptions } from '@herald/testing';
import { startController, type Controller } from './controller';

/**
 * Issue 3, "A Kafka broker connection dropped: relays resume without losing or
 * reordering a task's events", with real parts: a MySqlTaskStore on a database
 * of its own (triggers fill the outbox), the leading controller relaying it to
 * a KafkaEventBus whose connections all go through FaultySockets, and a
 * workload that keeps creating tasks and moving them through their states
 * while every Kafka connection is cut, twice, and then healed. A consumer of
 * the task-events topic (through the same faulty sockets) must get each task's
 * events complete and in order (a repeat of an earlier run is allowed: at
 * least once), and the outbox must end fully relayed.
 */

const MYSQL_URL = process.env.HERALD_TEST_MYSQL_URL ?? '';
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);

/** Consumer group timing for librdkafka's mock cluster (as in events-kafka's tests), and short kafkajs retries so a publish during a cut fails and the next pass retries it. */
const KAFKA_TIMING: Partial<KafkaEventBusOptions> = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
  retries: 2,
  initialRetryMs: 100,
  maxRetryMs: 500,
  requestTimeoutMs: 5_000,
};

/** Every task runs this path: 1 + 4 + 2 * 4 + 1 = 14 outbox events with its creation. */
const PATH: readonly TaskEvent[] = [
  'enqueue',
  'admit',
  'preprocessed',
  'dispatched',
  ...Array<TaskEvent[]>(4).fill(['preempt', 'resumeSending']).flat(),
  'complete',
];
const WORKERS = 4;
/** The workload pauses while the outbox holds more than this many unrelayed events (during a cut), so the backlog to drain stays small. */
const MAX_BACKLOG = 1_500;
/** Deadline for anything that needs Kafka to recover (group rejoins on the mock take seconds; the machine may be slow). */
const RECOVERY: Pick<WaitForOptions, 'timeoutMs' | 'intervalMs'> = { timeoutMs: 30_000, intervalMs: 20 };

interface Relayed {
  id: number;
  taskId: number;
  from: TaskState | null;
  to: TaskState;
  version: number;
}

/** One outbox event as the workload saw it committed: the task's version and state after the write. */
interface Expected {
  from: TaskState | null;
  to: TaskState;
  version: number;
}

/**
 * What is wrong with one task's received events against the events it had
 * ("at least once, in order"): each received event is the next one, or a step
 * back to an event already received after which the earlier run repeats
 * exactly; none is skipped, none unknown, and all arrive.
 */
function orderViolations(taskId: number, received: readonly Relayed[], expected: readonly Expected[]): string[] {
  const problems: string[] = [];
  const index = new Map(expected.map((e, i) => [e.version, i]));
  let max = -1;
  let prev = -1;
  for (const event of received) {
    const i = index.get(event.version);
    const want = i === undefined ? undefined : expected[i]!;
    if (want === undefined || want.from !== event.from || want.to !== event.to) {
      problems.push(`task ${taskId}: unexpected event v${event.version} ${String(event.from)}->${event.to}`);
      continue;
    }
    if (i! > max + 1)
      problems.push(
        `task ${taskId}: v${event.version} arrived after v${expected[max]?.version ?? '-'} (${i! - max - 1} skipped)`,
      );
    else if (i !== prev + 1 && i! > prev)
      problems.push(`task ${taskId}: v${event.version} after v${expected[prev]!.version} inside a redelivered run`);
    max = Math.max(max, i!);
    prev = i!;
  }
  if (max !== expected.length - 1) problems.push(`task ${taskId}: ${max + 1} of ${expected.length} events received`);
  return problems;
}

describe('orderViolations (the relay fault test checker)', () => {
  const e = (version: number, from: TaskState | null, to: TaskState): Expected => ({ version, from, to });
  const expected = [e(1, null, 'CREATED'), e(3, 'CREATED', 'QUEUED'), e(4, 'QUEUED', 'PREPROCESSING')];
  const got = (...versions: number[]) =>
    versions.map((v) => ({ id: 0, taskId: 7, ...expected.find((x) => x.version === v)! }));
  it('accepts exact order and exact repeats, and flags gaps, reordering, loss and strangers', () => {
    expect(orderViolations(7, got(1, 3, 4), expected)).toEqual([]);
    expect(orderViolations(7, got(1, 3, 1, 3, 4, 3, 4), expected)).toEqual([]);
    expect(orderViolations(7, got(1, 4, 3), expected)).not.toEqual([]);
    expect(orderViolations(7, got(3, 4), expected)).not.toEqual([]);
    expect(orderViolations(7, got(1, 3, 1, 4), expected)).not.toEqual([]);
    expect(orderViolations(7, got(1, 3), expected)).not.toEqual([]);
    expect(
      orderViolations(7, [...got(1, 3, 4), { id: 0, taskId: 7, version: 4, from: 'QUEUED', to: 'PAUSED' }], expected),
    ).not.toEqual([]);
  });
});

describe('controller outbox relay under Kafka broker faults (MySQL + Kafka)', () => {
  beforeAll(() => {
    if (MYSQL_URL === '' || brokers.length === 0)
      throw new Error(
        'HERALD_TEST_MYSQL_URL / HERALD_TEST_KAFKA_BROKERS not set (the jest global setup starts the test services)',
      );
  });

  // Typically 10-20 s; the ceiling leaves room for a slow, shared machine (every wait inside has its own deadline).
  jest.setTimeout(120_000);

  it("a Kafka broker connection dropped: relays resume without losing or reordering a task's events", async () => {
    const tag = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    const database = `herald_relay_${tag}`;
    const sockets = new FaultySockets();
    const kafka = { brokers, topicPrefix: `relay-${tag}.`, socketFactory: sockets.socketFactory, ...KAFKA_TIMING };
    /** The controller's own counters: relayed events and failed passes. */
    const counted = new Map<string, number>();
    const meter: Meter = {
      counter: (name) => ({ inc: (_labels, value = 1) => void counted.set(name, (counted.get(name) ?? 0) + value) }),
      gauge: () => ({ set() {} }),
      histogram: () => ({ observe() {} }),
    };
    const failedPasses = () => counted.get('herald_controller_pass_failures_total') ?? 0;
    /** Events committed but not yet relayed (marked), as far as the workload and the controller know. */
    const backlog = () => written - (counted.get('herald_controller_outbox_relayed_total') ?? 0);

    /** Per task: what the workload committed (the outbox's content) and what the consumer received. */
    const expected = new Map<number, Expected[]>();
    const received = new Map<number, Relayed[]>();
    let written = 0;
    let receivedTotal = 0;
    /** Events received for the first time (each task's high-water mark moved). */
    let distinctReceived = 0;
    /** The first event that arrived ahead of an earlier one of its task: lost or reordered (checked again in full at the end). */
    let firstGap: string | undefined;
    let workloadError: unknown;
    let stop = false;

    let store: MySqlTaskStore | undefined;
    let relayBus: KafkaEventBus | undefined;
    let readerBus: KafkaEventBus | undefined;
    let coordinator: Coordinator | undefined;
    let controller: Controller | undefined;
    let workload: Promise<void> = Promise.resolve();

    const failed = () => workloadError !== undefined || firstGap !== undefined;
    function check(): void {
      if (workloadError !== undefined) throw workloadError;
      expect(firstGap).toBeUndefined();
    }
    /** Waits for `condition`, failing at once on a gap or a dead workload. */
    async function until(
      condition: () => boolean | Promise<boolean>,
      message: string,
      options: Pick<WaitForOptions, 'timeoutMs' | 'intervalMs'> = RECOVERY,
    ): Promise<void> {
      await waitFor(async () => failed() || (await condition()), { ...options, message });
      check();
    }

    const lastVersion = (events: readonly Relayed[] | undefined) =>
      (events ?? []).reduce((m, e) => Math.max(m, e.version), 0);
    /** Whether every event the workload had committed when `snapshot` was taken has been received. */
    const caughtUp = (snapshot: ReadonlyMap<number, number>) =>
      [...snapshot].every(([id, version]) => lastVersion(received.get(id)) >= version);
    const committedSoFar = () => new Map([...expected].map(([id, events]) => [id, events[events.length - 1]!.version]));

    function record(task: Task, from: TaskState | null): void {
      let events = expected.get(task.id);
      if (events === undefined) expected.set(task.id, (events = []));
      events.push({ from, to: task.state, version: task.version });
      written++;
    }

    /** One worker: creates a task, claims it and drives it along PATH, then the next, until stopped. */
    async function worker(no: number): Promise<void> {
      const s = store!;
      while (!stop) {
        const created = await s.createTask(newTask({ accountId: `acct-${no}` }), Date.now());
        record(created, null);
        const { epoch } = await s.claimTask(created.id, `worker-${no}`, Date.now());
        let state: TaskState = created.state;
        for (const event of PATH) {
          if (backlog() > MAX_BACKLOG)
            await waitFor(() => stop || failed() || backlog() <= MAX_BACKLOG / 2, {
              timeoutMs: 45_000,
              intervalMs: 20,
              message: 'the relay to drain the outbox',
            });
          if (stop) return;
          const task = await s.transitionTask(created.id, { epoch }, event, {}, Date.now());
          record(task, state);
          state = task.state;
        }
      }
    }

    try {
      await migrate(MYSQL_URL, { database });
      store = await MySqlTaskStore.open({ url: MYSQL_URL, database, poolSize: WORKERS + 2 });
      [relayBus, readerBus] = await Promise.all([
        KafkaEventBus.connect({ ...kafka, clientId: `relay-${tag}` }),
        KafkaEventBus.connect({ ...kafka, clientId: `reader-${tag}` }),
      ]);
      await readerBus.subscribe(
        TOPICS.taskEvents,
        'checker',
        async (events: ConsumedEvent[]) => {
          for (const event of events) {
            const value = event.value as Relayed;
            let seen = received.get(value.taskId);
            if (seen === undefined) received.set(value.taskId, (seen = []));
            const last = lastVersion(seen);
            if (value.version > last) {
              distinctReceived++;
              // A later version while the task committed an earlier one not yet received: a gap.
              const next = expected.get(value.taskId)?.find((e) => e.version > last);
              if (next !== undefined && next.version !== value.version)
                firstGap ??= `task ${value.taskId}: v${value.version} arrived before v${next.version}`;
            }
            seen.push(value);
          }
          receivedTotal += events.length;
        },
        { fromBeginning: true, retryDelayMs: 50 },
      );
      coordinator = await createLocalCoordinatorCluster().connect();
      controller = await startController(
        { id: `controller-${tag}`, intervalMs: 50, relayBatch: 100 },
        { coordinator, store, bus: relayBus, meter },
      );
      expect(controller.isLeader()).toBe(true);

      workload = Promise.all(Array.from({ length: WORKERS }, (_, no) => worker(no))).then(
        () => undefined,
        (error: unknown) => void (workloadError = error),
      );
      for (let cut = 1; cut <= 2; cut++) {
        const distinctBefore = distinctReceived;
        await until(() => distinctReceived >= distinctBefore + 100, `events flowing before cut ${cut}`);
        const refusedBefore = sockets.refused;
        const failedBefore = failedPasses();
        const writtenBefore = written;
        expect(sockets.cut()).toBeGreaterThan(0);
        // Stay cut until the clients tried to reconnect, a relay pass failed, and the workload went on writing.
        await until(
          () => sockets.refused >= refusedBefore + 3 && failedPasses() > failedBefore && written >= writtenBefore + 100,
          `reconnect attempts, a failed relay pass and new task events during cut ${cut}`,
          { timeoutMs: 20_000, intervalMs: 20 },
        );
        const committedInCut = committedSoFar();
        sockets.restore();
        // Resumed: everything committed up to the restore arrives.
        await until(() => caughtUp(committedInCut), `events committed during cut ${cut} relayed after the restore`);
      }
      stop = true;
      await workload;
      check();
      await until(async () => (await store!.readOutbox(0, 1)).length === 0, 'the outbox fully relayed');
      await until(() => caughtUp(committedSoFar()), "every task's last event received");
      expect([...received.keys()].filter((id) => !expected.has(id))).toEqual([]);
      expect([...expected].flatMap(([id, events]) => orderViolations(id, received.get(id) ?? [], events))).toEqual([]);
      expect(await store.readOutbox(0, 1)).toEqual([]);
      expect(sockets.cuts).toBe(2);
      expect(failedPasses()).toBeGreaterThanOrEqual(2);
      if (process.env.HERALD_TEST_VERBOSE) {
        console.log({
          tasks: expected.size,
          written,
          received: receivedTotal,
          duplicates: receivedTotal - written,
          failedPasses: failedPasses(),
          destroyed: sockets.destroyed,
          refused: sockets.refused,
        });
      }
    } finally {
      stop = true;
      sockets.restore();
      await workload;
      await controller?.stop();
      await coordinator?.close();
      await Promise.allSettled([relayBus?.close(), readerBus?.close()]);
      await store?.close();
      const conn = await createConnection({ uri: MYSQL_URL });
      try {
        await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
      } finally {
        await conn.end();
      }
    }
  });
});
