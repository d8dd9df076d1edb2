import type { Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import type { WebhookBatch } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  makeTempDir,
  rateLimitedPolicy,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  WebhookReceiver,
  type TempDir,
} from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/** The receiver's limit, and the channel's configured one: an operator who knows the push service's limit sets it. */
const LIMIT = 20_000;

/**
 * One channel budget for every executor of a process (docs/delivery.md, "One
 * budget per channel"): two executors of one embedded cluster broadcast 10^5
 * recipients through a webhook that accepts at most LIMIT recipients per
 * second in all and answers 429 + Retry-After above it. Both executors send,
 * through one pacing: together they keep to the limit, so the receiver
 * throttles at most 1% of the requests (each executor pacing to the limit on
 * its own would send twice the limit, and half would be throttled), and the
 * broadcast completes exact. The rate it settles at is bench/channel-throttle.js's
 * to measure (no timing assertions in tests).
 */
describe('one channel budget shared by the executors of a process', () => {
  let dir: TempDir;
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 20;
  const audience = syntheticAudience({
    recipients: 100_000,
    onlineFraction: 0.9,
    uinLimit: 2 ** uinSpaceBits,
    seed: 20,
  });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-channel-budget-');
    receiver = await WebhookReceiver.start();
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      executor: { ids: ['executor-1', 'executor-2'] },
      // A recipient's estimated memory so large that no one host can hold the task: its units split over both.
      load: { memoryBytesPerRecipient: 1 << 20 },
      dispatcher: { batchSize: 500, unitSize: 5000 },
      delivery: {
        kind: 'webhook',
        // A generous timeout: a slow answer on a busy machine must not look like a failure here.
        webhook: { url: receiver.url, timeoutMs: 10_000, pacing: { minRate: 1000, maxRate: LIMIT } },
      },
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  it('keeps two executors together within the limit: exact, and at most 1% of requests throttled', async () => {
    const limit = rateLimitedPolicy({ recipientsPerSecond: LIMIT });
    receiver.answerBy(limit.policy);
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body: 'budget' },
    });
    expect([list.status, created.status]).toEqual([201, 201]);
    const task = await waitForEnd(cluster, created.body.id, 120_000);

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    const accepted = receiver.accepted.flatMap((r) => (r.body as WebhookBatch).uins).sort((a, b) => a - b);
    // Every online recipient accepted, and only once: a throttled batch was not accepted, so it goes again whole.
    expect(accepted).toEqual([...online]);
    // Both executors held units of it, so both sent.
    const units = await cluster.store.listUnits(task.id);
    expect(new Set(units.map((u) => u.executorId))).toEqual(new Set(['executor-1', 'executor-2']));
    expect(limit.throttled + limit.accepted).toBe(receiver.requests.length);
    expect(limit.throttled).toBeLessThanOrEqual(0.01 * receiver.requests.length);
  }, 150_000);
});
