import type { HeraldOptions } from '@herald/core/config';
import type { Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { BATCH_REFUSED, type WebhookBatch } from '@herald/executor';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  waitFor,
  WebhookReceiver,
  type TempDir,
  type WebhookAnswer,
  type WebhookRequest,
} from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * Delivery paced by the channel's health (docs/delivery.md): an embedded
 * cluster pushing to a local webhook that throttles, hangs, rejects some
 * recipients or refuses a task's batches whole. Each broadcast ends exact:
 * every online recipient accepted once or counted as a dead letter, none
 * lost, none sent again once the channel answered for it.
 */
const MIN_RATE = 2000;
const UIN_SPACE_BITS = 20;

/** A cluster pushing to its own WebhookReceiver, `audience`'s online users online; `stop` removes it all. */
async function webhookCluster(
  audience: { online: ArrayLike<number> },
  options: { scheduler?: HeraldOptions['scheduler']; unitSize: number; webhook: Omit<WebhookOptions, 'url'> },
) {
  const dir: TempDir = await makeTempDir('herald-channel-health-');
  const receiver = await WebhookReceiver.start();
  const cluster = await startEmbeddedCluster({
    dataDir: dir.path,
    uinSpaceBits: UIN_SPACE_BITS,
    http: { port: 0 },
    auth: TEST_AUTH_OPTIONS,
    tasks: TEST_TASK_OPTIONS,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    dispatcher: { batchSize: 500, unitSize: options.unitSize },
    delivery: { kind: 'webhook', webhook: { url: receiver.url, ...options.webhook } },
  });
  for (let i = 0; i < audience.online.length; i++) cluster.online.setOnline(audience.online[i]!, true);
  const stop = async () => {
    await cluster.stop();
    await receiver.stop();
    await dir.remove();
  };
  return { receiver, cluster, stop };
}

/** Creates a task of `audience`'s whole list with this body. */
async function broadcastTo(cluster: EmbeddedCluster, list: ArrayLike<number>, body: string): Promise<Task> {
  const uploaded = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(list));
  const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
    accountId: 'acme',
    listId: uploaded.body.id,
    content: { body },
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** A counter or gauge from the cluster's exposition, 0 when absent. */
async function metricOf(cluster: EmbeddedCluster, name: string, labels: string): Promise<number> {
  const { body } = await cluster.meter.exposition();
  const line = body.split('\n').find((l) => l.startsWith(labels === '' ? `${name} ` : `${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** A synthetic audience with half its users online, and its online recipients in list order. */
function halfOnline(recipients: number, seed: number) {
  const audience = syntheticAudience({ recipients, onlineFraction: 0.5, uinLimit: 2 ** UIN_SPACE_BITS, seed });
  const onlineSet = new Set(audience.online);
  return { audience, online: audience.distinct.filter((uin) => onlineSet.has(uin)) };
}

const batchOf = (request: WebhookRequest) => request.body as WebhookBatch;
type WebhookOptions = NonNullable<NonNullable<HeraldOptions['delivery']>['webhook']>;

describe('delivery paced by the channel', () => {
  let receiver: WebhookReceiver;
  let cluster: EmbeddedCluster;
  let stop: (() => Promise<void>) | undefined;
  const { audience, online } = halfOnline(10_000, 5);

  beforeAll(async () => {
    ({ receiver, cluster, stop } = await webhookCluster(audience, {
      unitSize: 2500,
      webhook: {
        timeoutMs: 300,
        maxAttempts: 2,
        retryDelayMs: 10,
        // A floor of 2,000/s: each case sends its 5,000 online recipients in seconds whatever rate the cases
        // before it left (a cut after a hang or a 429 climbs back slowly from the default 100/s floor).
        pacing: { breakerOpenMs: 500, maxHoldMs: 10_000, minRate: MIN_RATE },
      },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  const broadcast = (body: string) => broadcastTo(cluster, audience.list, body);
  const metric = (name: string, labels: string) => metricOf(cluster, name, labels);
  const sentTo = (taskId: number) => receiver.requests.map(batchOf).filter((b) => b.taskId === taskId);
  const acceptedUins = (taskId: number) =>
    receiver.accepted
      .map(batchOf)
      .filter((b) => b.taskId === taskId)
      .flatMap((b) => b.uins)
      .sort((a, b) => a - b);

  it('waits out 429 with Retry-After 2 s, then completes exact: nothing lost, nothing accepted twice', async () => {
    let throttleUntil: number | undefined;
    receiver.answerBy((): WebhookAnswer => {
      throttleUntil ??= Date.now() + 3000;
      return Date.now() < throttleUntil ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 };
    });
    const created = await broadcast('throttled');
    // While the channel holds it, the task's view says so, in the channel's words.
    let held: Task | undefined;
    await waitFor(
      async () => {
        held = (await call<Task>(cluster, 'GET', `/api/v1/tasks/${created.id}`)).body;
        return held.report.channel?.state === 'throttled';
      },
      { timeoutMs: 10_000, message: 'the task shows its channel throttled' },
    );
    expect([held!.state, held!.report.channel?.reason]).toEqual(['SENDING', expect.stringContaining('429')]);
    const task = await waitForEnd(cluster, created.id);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.channel).toBeNull();
    expect(task.report.delivered).toBe(online.length);
    expect(acceptedUins(task.id)).toEqual([...online]);
    expect(await metric('herald_channel_throttled_total', 'channel="webhook"')).toBeGreaterThan(0);
  });

  it('times out a hanging receiver, opens the breaker, and resumes by itself once it answers', async () => {
    let hangs = 0;
    receiver.answerBy((): WebhookAnswer => (hangs++ < 4 ? 'hang' : { status: 200 }));
    const opened = await metric('herald_channel_breaker_opened_total', 'channel="webhook"');
    const created = await broadcast('hanging');
    const task = await waitForEnd(cluster, created.id);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    expect(acceptedUins(task.id)).toEqual([...online]);
    expect(await metric('herald_channel_breaker_opened_total', 'channel="webhook"')).toBeGreaterThan(opened);
    expect(await metric('herald_channel_breaker_state', 'channel="webhook"')).toBe(0);
  });

  it('counts recipients the receiver rejects as dead letters by reason, and never sends them again', async () => {
    const reasonOf = (uin: number) =>
      uin % 7 === 0 ? 'unregistered' : uin % 11 === 0 ? 'bad_device_token' : undefined;
    receiver.answerBy((request): WebhookAnswer => {
      const rejected = batchOf(request)
        .uins.filter((uin) => reasonOf(uin) !== undefined)
        .map((uin) => ({ uin, reason: reasonOf(uin) }));
      return { status: 200, body: JSON.stringify({ rejected }) };
    });
    const dead = (reason: string) =>
      metric('herald_channel_dead_letters_total', `channel="webhook",reason="${reason}"`);
    const before = { unregistered: await dead('unregistered'), bad: await dead('bad_device_token') };
    const created = await broadcast('some rejected');
    const task = await waitForEnd(cluster, created.id);
    const unregistered = online.filter((uin) => reasonOf(uin) === 'unregistered').length;
    const bad = online.filter((uin) => reasonOf(uin) === 'bad_device_token').length;
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length - unregistered - bad);
    expect(task.report.deadLetters).toEqual({ unregistered, bad_device_token: bad });
    expect((await dead('unregistered')) - before.unregistered).toBe(unregistered);
    expect((await dead('bad_device_token')) - before.bad).toBe(bad);
    // Each recipient was sent once: the rejected ones were not tried again.
    expect(
      sentTo(task.id)
        .flatMap((b) => b.uins)
        .sort((a, b) => a - b),
    ).toEqual([...online]);
  });

  it('fails a task whose batch the receiver refuses whole (400) fast, with one clear error: no loop', async () => {
    receiver.answerBy((request): WebhookAnswer =>
      batchOf(request).content.body === 'refused' ? { status: 400, body: 'payload refused' } : { status: 200 },
    );
    const before = await metric('herald_channel_dead_letters_total', `channel="webhook",reason="${BATCH_REFUSED}"`);
    const created = await broadcast('refused');
    const task = await waitForEnd(cluster, created.id);
    expect([task.state, task.error?.code, task.report.delivered]).toEqual(['FAILED', 'DELIVERY_REJECTED', 0]);
    expect(task.error?.message).toMatch(/^the delivery channel refused a batch whole: .*400/);
    expect(sentTo(task.id)).toHaveLength(1);
    // The refused batch's online recipients are its dead letters; batches already on their way are refused unsent.
    const refused = task.report.deadLetters?.[BATCH_REFUSED] ?? 0;
    expect(refused).toBeGreaterThan(0);
    expect(
      (await metric('herald_channel_dead_letters_total', `channel="webhook",reason="${BATCH_REFUSED}"`)) - before,
    ).toBeGreaterThanOrEqual(refused);
    expect(await metric('herald_channel_refused_batches_total', 'channel="webhook"')).toBe(1);
  });

  it("changes the channel's limit at run time through the admin API, without a restart", async () => {
    const listed = await call<{ channels: { channel: string; maxRate: number; rate: number }[] }>(
      cluster,
      'GET',
      '/api/v1/channels',
    );
    expect(listed.body.channels.map((c) => c.channel)).toEqual(['webhook']);
    // The earlier cases' 429s, timeouts and refusals left the rate wherever AIMD took it (their timing decides):
    // a limit under it (when it is above twice the floor), so the change must move the rate down at once. Nothing is sending, so it holds still.
    const before = listed.body.channels[0]!.rate;
    const limit = Math.max(2 * MIN_RATE, Math.floor(before / 2));
    const changed = await call(cluster, 'PUT', '/api/v1/channels/webhook/limits', { maxRate: limit });
    expect(changed).toEqual({
      status: 200,
      body: {
        channel: 'webhook',
        minRate: expect.any(Number),
        maxRate: limit,
        rate: Math.min(before, limit),
        senders: 1,
      },
    });
    expect(await metric('herald_channel_rate_limit', 'channel="webhook"')).toBe(Math.min(before, limit));
    const refused = [
      await call(cluster, 'PUT', '/api/v1/channels/webhook/limits', { maxRate: limit, burst: 5 }),
      await call(cluster, 'PUT', '/api/v1/channels/webhook/limits', { minRate: limit + 1 }),
      await call(cluster, 'PUT', '/api/v1/channels/webhook/limits', {}),
    ];
    expect(refused.map((r) => [r.status, (r.body as { error: { code: string } }).error.code])).toEqual([
      [400, 'VALIDATION_FAILED'],
      [400, 'VALIDATION_FAILED'],
      [400, 'VALIDATION_FAILED'],
    ]);
    expect((await call(cluster, 'PUT', '/api/v1/channels/kafka/limits', { maxRate: 10 })).status).toBe(404);
    const now = await call<{ channels: { maxRate: number }[] }>(cluster, 'GET', '/api/v1/channels');
    expect(now.body.channels[0]!.maxRate).toBe(limit);
  });
});

/**
 * A channel hold longer than the stall period (docs/delivery.md, "On the
 * task"): the receiver answers 429 with a Retry-After of two and a half stall
 * periods. The executor holds the batch in hand and repeats the hold's
 * report, so the scheduler's stall watch runs nothing again: no unit re-run,
 * no batch accepted twice, the broadcast exact once the hold ends.
 */
describe('a channel hold longer than scheduler.unitStallMs', () => {
  const STALL_MS = 2000;
  const { audience, online } = halfOnline(8_000, 9);
  let held: Awaited<ReturnType<typeof webhookCluster>> | undefined;

  beforeAll(async () => {
    held = await webhookCluster(audience, {
      scheduler: { tickMs: 100, unitStallMs: STALL_MS },
      unitSize: 2000,
      webhook: { pacing: { maxHoldMs: 10_000, minRate: MIN_RATE } },
    });
  });

  afterAll(async () => {
    await held?.stop();
  });

  it('runs no unit again while the executor repeats the hold, and completes exact', async () => {
    const { cluster, receiver } = held!;
    let throttled = false;
    receiver.answerBy((): WebhookAnswer => {
      if (throttled) return { status: 200 };
      throttled = true;
      return { status: 429, headers: { 'retry-after': String((2.5 * STALL_MS) / 1000) } };
    });
    const task = await waitForEnd(cluster, (await broadcastTo(cluster, audience.list, 'held')).id);
    expect([task.state, task.report.delivered]).toEqual(['COMPLETED', online.length]);
    expect(throttled).toBe(true);
    expect(receiver.requests.length).toBeGreaterThan(receiver.accepted.length); // the 429 came
    expect(await metricOf(cluster, 'herald_scheduler_stalled_units_total', '')).toBe(0);
    const accepted = receiver.accepted.flatMap((r) => batchOf(r).uins).sort((a, b) => a - b);
    expect(accepted).toEqual([...online]);
  });
});
