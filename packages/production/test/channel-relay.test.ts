import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import {
  authHeaders,
  makeTempDir,
  ProcessCluster,
  type TempDir,
  waitFor,
  type WebhookAnswer,
  WebhookReceiver,
} from '@herald/testing';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/** The channel's budget for both executors: slow enough that both are mid-broadcast when the 429 comes. */
const LIMIT = 4000;
/** The receiver's one 429 goes to this request (1-based), and holds the channel this long. */
const THROTTLED_REQUEST = 12;
const RETRY_AFTER_S = 4;
/**
 * From the 429 on, this long is left for what was already on its way: the
 * other executor's requests sent before the relay reached it, and the relay
 * itself (one ZeroMQ message between processes on this host).
 */
const IN_FLIGHT_MS = 1000;

/**
 * A throttle crossing executor processes (docs/delivery.md, "One budget per
 * channel"), on the production profile: two executors, each its own process,
 * broadcast through one webhook. The receiver answers one request 429 with
 * Retry-After and every other request 200, as a service whose quota check
 * fired once would: so an executor that does not hear of the 429 goes on
 * sending through the hold (each of them at its share, several requests a
 * second), and only the relay (channel.throttled on the executors'
 * channelEndpoint) keeps it quiet. The receiver notes when each request
 * came: after the 429 and the in-flight allowance, none may arrive before
 * the Retry-After ends; the broadcast completes exact.
 */
jest.setTimeout(240_000);

async function api<T>(cluster: ProcessCluster, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(cluster.url + path, { ...init, headers: { ...init.headers, ...authHeaders() } });
  return (await response.json()) as T;
}

/** One counter of one executor's channel, from its management endpoint's metrics. */
async function counterOf(cluster: ProcessCluster, id: string, metric: string): Promise<number> {
  const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
    headers: cluster.managementHeaders(),
  });
  const line = (await response.text()).split('\n').find((l) => l.startsWith(`${metric}{channel="webhook"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** Sends `uins` as one task and waits for its end. */
async function broadcast(cluster: ProcessCluster, uins: ArrayLike<number>, body: string): Promise<Task> {
  const list = await api<ListMeta>(cluster, '/api/v1/lists?accountId=acme', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: encodeRecipientList(uins),
  });
  const created = await api<Task>(cluster, '/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body } }),
  });
  let task: Task | undefined;
  await waitFor(
    async () => {
      task = await api<Task>(cluster, `/api/v1/tasks/${created.id}`);
      return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
    },
    { timeoutMs: 180_000, intervalMs: 200, message: `task ${created.id} ending (last: ${task?.state})` },
  );
  return task!;
}

describe('production profile: a throttle relayed between executors', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let receiver: WebhookReceiver;
  const names = uniqueNames('relay');
  const audience = syntheticAudience({ recipients: 40_000, onlineFraction: 0.9, uinLimit: 2 ** 24, seed: 21 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-relay-');
    receiver = await WebhookReceiver.start();
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
      names,
    );
    await startWithAudience(cluster, audience, {
      delivery: {
        kind: 'webhook',
        webhook: { url: receiver.url, timeoutMs: 10_000, pacing: { minRate: 500, maxRate: LIMIT } },
      },
      dispatcher: { batchSize: 500, unitSize: 10_000 },
      // A recipient's estimated memory so large that no one host can hold the task: its units split over both.
      load: { memoryBytesPerRecipient: 1 << 20 },
    });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await receiver?.stop();
  });

  it("holds every executor for one executor's Retry-After: nothing sent in the hold, nothing lost", async () => {
    const arrivals: number[] = [];
    let throttledAt: number | undefined;
    receiver.answerBy((): WebhookAnswer => {
      arrivals.push(Date.now());
      if (arrivals.length !== THROTTLED_REQUEST) return { status: 200 };
      throttledAt = Date.now();
      return { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) } };
    });
    const task = await broadcast(cluster, audience.list, 'one hold');
    expect(task.state).toBe('COMPLETED');
    // Nothing lost, nothing twice: the throttled batch went again whole, after the hold.
    const accepted = receiver.accepted.flatMap((r) => (r.body as WebhookBatch).uins).sort((a, b) => a - b);
    expect(accepted).toEqual([...online]);

    expect(throttledAt).toBeDefined();
    const holdEnds = throttledAt! + RETRY_AFTER_S * 1000;
    const inHold = arrivals.filter((at) => at >= throttledAt! + IN_FLIGHT_MS && at < holdEnds);
    expect(inHold).toEqual([]);
    // Both executors sent, before and after the hold, and the one not throttled heard of it from the other.
    expect(arrivals.filter((at) => at >= holdEnds).length).toBeGreaterThan(1);
    const executors = cluster.ids('executor');
    for (const id of executors)
      expect(await counterOf(cluster, id, 'herald_channel_accepted_recipients_total')).toBeGreaterThan(0);
    const throttled = await Promise.all(
      executors.map((id) => counterOf(cluster, id, 'herald_channel_throttled_total')),
    );
    const relayed = await Promise.all(
      executors.map((id) => counterOf(cluster, id, 'herald_channel_peer_throttles_total')),
    );
    expect(throttled.reduce((a, b) => a + b)).toBe(1);
    expect(relayed).toEqual(throttled.map((t) => 1 - t));
  });
});
