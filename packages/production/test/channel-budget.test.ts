import { encodeRecipientList } from '@herald/core/recipient-list';
import type { ListMeta, Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import {
  authHeaders,
  makeTempDir,
  ProcessCluster,
  rateLimitedPolicy,
  type TempDir,
  waitFor,
  WebhookReceiver,
} from '@herald/testing';
import { startWithAudience, tearDown, uniqueNames } from './scenario';

/** The receiver's limit, and the channel's configured one (the whole budget, for both executors). */
const LIMIT = 20_000;

/**
 * One channel budget across executor processes (docs/delivery.md, "One
 * budget per channel"), on the production profile: two executors, each its
 * own process, broadcast 10^5 recipients through a webhook that accepts at
 * most LIMIT recipients/s in all and answers 429 + Retry-After above it. Each
 * executor paces to half the configured limit, so together they keep to it:
 * the receiver throttles at most 1% of the requests (each pacing to the
 * whole limit would send twice it), and the broadcast completes exact. The
 * rate is bench/channel-throttle.js's to measure (no timing assertions).
 */
jest.setTimeout(240_000);

describe('production profile: one channel budget over the executors', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let receiver: WebhookReceiver;
  const names = uniqueNames('budget');
  const audience = syntheticAudience({ recipients: 100_000, onlineFraction: 0.9, uinLimit: 2 ** 24, seed: 20 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-budget-');
    receiver = await WebhookReceiver.start();
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
      names,
    );
    await startWithAudience(cluster, audience, {
      delivery: {
        kind: 'webhook',
        webhook: { url: receiver.url, timeoutMs: 10_000, pacing: { minRate: 1000, maxRate: LIMIT } },
      },
      // Batches of 500: some 200 requests, so 1% of them is a count, not a rounding.
      dispatcher: { batchSize: 500, unitSize: 20_000 },
      // A recipient's estimated memory so large that no one host can hold the task: its units split over both.
      load: { memoryBytesPerRecipient: 1 << 20 },
    });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await receiver?.stop();
  });

  async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(cluster.url + path, { ...init, headers: { ...init.headers, ...authHeaders() } });
    return (await response.json()) as T;
  }

  /** herald_channel_accepted_recipients_total of one executor, from its management endpoint. */
  async function acceptedBy(id: string): Promise<number> {
    const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
      headers: cluster.managementHeaders(),
    });
    const line = (await response.text())
      .split('\n')
      .find((l) => l.startsWith('herald_channel_accepted_recipients_total{channel="webhook"}'));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  it('paces each executor to its share: together within the limit, exact, at most 1% throttled', async () => {
    // Each executor's management endpoint shows the whole budget and that it shares it with one other.
    for (const id of cluster.ids('executor')) {
      const answer = await fetch(`http://${cluster.managementAddress(id)}/channels`, {
        headers: cluster.managementHeaders(),
      });
      expect(await answer.json()).toEqual({
        channels: [{ channel: 'webhook', minRate: 1000, maxRate: LIMIT, rate: LIMIT / 2, senders: 2 }],
      });
    }
    const limit = rateLimitedPolicy({ recipientsPerSecond: LIMIT });
    receiver.answerBy(limit.policy);
    const list = await api<ListMeta>('/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: encodeRecipientList(audience.list),
    });
    const created = await api<Task>('/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'one budget' } }),
    });
    let task: Task | undefined;
    await waitFor(
      async () => {
        task = await api<Task>(`/api/v1/tasks/${created.id}`);
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state);
      },
      { timeoutMs: 180_000, intervalMs: 200, message: `task ${created.id} ending (last: ${task?.state})` },
    );
    expect(task!.state).toBe('COMPLETED');
    const accepted = receiver.accepted.flatMap((r) => (r.body as WebhookBatch).uins).sort((a, b) => a - b);
    // Every online recipient accepted, and only once: a throttled batch was not accepted, so it goes again whole.
    expect(accepted).toEqual([...online]);
    // Both executors sent: each one's channel accepted some of them.
    for (const id of cluster.ids('executor')) expect(await acceptedBy(id)).toBeGreaterThan(0);
    expect(limit.throttled + limit.accepted).toBe(receiver.requests.length);
    expect(limit.throttled).toBeLessThanOrEqual(0.01 * receiver.requests.length);
  });
});
