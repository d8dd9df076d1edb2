import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syntheticAudience } from '@herald/audience';
import {
  type ApnsRequest,
  apnsRateLimitedPolicy,
  fcmRateLimitedPolicy,
  type FcmRequest,
  fcmToken,
  Http2ApnsServer,
  Http2FcmServer,
  makeTempDir,
  ProcessCluster,
  type RateLimitedAnswer,
  settledSending,
  type TempDir,
  waitFor,
} from '@herald/testing';
import { seedDevices } from './device-seed';
import { startWithAudience, tearDown, uniqueNames } from './scenario';
import { broadcastToEnd, channelCounter, THROTTLE_CLUSTER } from './throttle-broadcast';

/**
 * The servers' limit, messages (= recipients: one device each) per second,
 * and the channel's `maxRate`. Not the issue's 20k/s: FCM and APNs take one
 * HTTP/2 request per device, some 500 times the work of a webhook's or the
 * ZeroMQ gateway's batch, and on this 2-core machine under load a
 * production cluster sends only some 800-1,300 of them a second end to end
 * (measured with `maxRate` 20,000: FCM 1,322/s and APNs 993/s at load
 * 23-28, 1,327/s and 823/s at load 35-42), so a 20k/s limit would never be
 * reached and the test could not fail. The limit is near what the machine
 * does under load, so the pacing, not the machine, has to hold it there
 * (each executor pacing to the whole budget would send up to twice it); at
 * 1,000/s (measured: 908/s and 829/s at load 28-30) 10^5 recipients (88,254
 * online) take some 90-120 s a channel, so the issue's first 10 s
 * (SETTLE_MS) can be left out. A higher limit would be quicker but could not
 * be reached under that load.
 */
const LIMIT = 1_000;
const SETTLE_MS = 10_000;

/**
 * Issue 20's throttle tests for the mobile-push channels, on the production
 * profile: two executors, each its own process, broadcast 10^5 recipients
 * (90% online) through the local FCM HTTP v1 server, then through the local
 * APNs server, each accepting at most LIMIT messages/s in all and
 * answering above it as the provider documents: FCM 429 RESOURCE_EXHAUSTED
 * (QUOTA_EXCEEDED) with Retry-After in whole seconds, APNs 429
 * TooManyRequests with no Retry-After (Apple documents none: Herald then
 * holds the channel `pacing.throttleDelayMs`). Every uin has one device of
 * each platform, so a message is a recipient and the limit is in both.
 *
 * One cluster for both (its start and the logins take a minute or more
 * under load): the FCM broadcast first, then the executors restart with
 * `delivery.kind` 'apns'. A third, smaller broadcast makes APNs throttle
 * (a quota under the channel's maxRate), so the path without Retry-After
 * runs end to end. Asserted per channel: the broadcast completes exact in
 * docs/delivery.md's terms (every online uin's own device accepted a push;
 * a device got one again only in a batch that was throttled, since a
 * throttle sends the whole batch again), no message failed, at most 1% of
 * the messages after the first SETTLE_MS were throttled, and the send rate
 * the server's own log shows after it is not above the limit by more than
 * 20%. How close below the limit it comes depends on the machine's load: a
 * timing, so reported (bench/RESULTS.md), not asserted.
 */
jest.setTimeout(420_000);
/**
 * A whole broadcast's deadline: 88,254 online at LIMIT/s take 90 s at best,
 * 120-160 s on the slow VM beside the CI's other clusters; one took over 180 s
 * there (2026-11-29), which timed out the next test's task too, queued behind
 * it at the same limit.
 */
const BROADCAST_MS = 300_000;

/** An APNs device token (64 hex digits) of its own per uin (the conformance suite's apnsToken pads with 'a', which repeats across 2^24 uins). */
const apnsToken = (uin: number): string => uin.toString(16).padStart(64, '0');

/** What the tests read of one message a local push server took. */
interface Push {
  uin: number;
  token: string;
  /** The batch key the push carries (docs/delivery.md, "FCM and APNs"). */
  batch: string;
}

const fcmPush = (r: FcmRequest): Push => ({
  uin: Number(r.message.data?.uin),
  token: r.token,
  batch: String(r.message.data?.batch),
});
const apnsPush = (r: ApnsRequest): Push => ({
  uin: Number(r.payload.herald?.uin),
  token: r.token,
  batch: String(r.payload.herald?.batch),
});

describe('production profile: broadcasts through throttling FCM and APNs servers', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let fcm: Http2FcmServer;
  let apns: Http2ApnsServer;
  const names = uniqueNames('pushthrottle');
  const audience = syntheticAudience({ recipients: 100_000, onlineFraction: 0.9, uinLimit: 2 ** 24, seed: 20 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));
  const pacing = { minRate: LIMIT / 10, maxRate: LIMIT };

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-push-throttle-');
    [fcm, apns] = await Promise.all([Http2FcmServer.start(), Http2ApnsServer.start()]);
    await Promise.all([
      writeFile(join(dir.path, 'fcm-account.json'), fcm.serviceAccountJson),
      writeFile(join(dir.path, 'fcm-ca.pem'), fcm.ca),
      writeFile(join(dir.path, 'apns-key.p8'), apns.keyPem),
      writeFile(join(dir.path, 'apns-ca.pem'), apns.ca),
    ]);
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
      names,
    );
    await startWithAudience(cluster, audience, {
      delivery: fcmDelivery(),
      ...THROTTLE_CLUSTER,
      // Batches of 100: an executor's share of the limit is 500 messages/s, and a batch of 500 would go as
      // one burst of a second's worth (500 at once against the servers' half-second burst), then nothing.
      dispatcher: { ...THROTTLE_CLUSTER.dispatcher, batchSize: 100 },
    });
    await seedDevices(
      names.database,
      Array.from(audience.distinct).flatMap((uin) => [
        { uin, platform: 'fcm' as const, token: fcmToken(uin) },
        { uin, platform: 'apns' as const, token: apnsToken(uin) },
      ]),
    );
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await Promise.all([fcm?.stop(), apns?.stop()]);
  });

  function fcmDelivery(): Record<string, unknown> {
    return {
      kind: 'fcm',
      fcm: {
        credentialsFile: join(dir.path, 'fcm-account.json'),
        endpoint: fcm.endpoint,
        tokenUrl: fcm.tokenUrl,
        caFile: join(dir.path, 'fcm-ca.pem'),
        timeoutMs: 10_000,
        pacing,
      },
    };
  }

  function apnsDelivery(): Record<string, unknown> {
    return {
      kind: 'apns',
      apns: {
        keyFile: join(dir.path, 'apns-key.p8'),
        keyId: apns.keyId,
        teamId: apns.teamId,
        topic: apns.topic,
        endpoint: apns.endpoint,
        caFile: join(dir.path, 'apns-ca.pem'),
        timeoutMs: 10_000,
        pacing,
      },
    };
  }

  it('FCM: completes exact, within the limit, with at most 1% of messages throttled after the start', async () => {
    const limit = fcmRateLimitedPolicy({ recipientsPerSecond: LIMIT });
    fcm.answerBy(limit.policy);
    const task = await broadcastToEnd(cluster, audience, 'throttled fcm', BROADCAST_MS);

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    const repeats = expectExactAtLeastOnce(fcm.requests.map(fcmPush), limit.log, fcmToken, online);
    await expectNoFailures('fcm');
    expectWithinLimit('fcm', limit.log, repeats);
  });

  it('APNs: completes exact, within the limit, with at most 1% of messages throttled after the start', async () => {
    await restartExecutorsWith(apnsDelivery());
    const limit = apnsRateLimitedPolicy({ recipientsPerSecond: LIMIT });
    apns.answerBy(limit.policy);
    const task = await broadcastToEnd(cluster, audience, 'throttled apns', BROADCAST_MS);

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    const repeats = expectExactAtLeastOnce(apns.requests.map(apnsPush), limit.log, apnsToken, online);
    await expectNoFailures('apns');
    expectWithinLimit('apns', limit.log, repeats);
  });

  /**
   * APNs answering above a quota well under the channel's maxRate (one the
   * operator did not know): 429 TooManyRequests without Retry-After, so each
   * throttle holds the channel `pacing.throttleDelayMs` (1 s by default),
   * cuts its rate and holds the other executor too; the batch goes again
   * whole. Still exact: every recipient's device accepted, repeats only in
   * throttled batches, and the throttles came back to the pacing as
   * throttles (counted, one per batch at most), none as a failure.
   */
  it('APNs over a lower quota: throttled without Retry-After, held, sent again, exact', async () => {
    // 2,000 recipients at a quarter of LIMIT are some 8 s of sending, past the first throttles
    // (asserted below) and their holds; 5,000 took some 20 s for the same assertions.
    const recipients = audience.online.subarray(0, 2_000);
    const quota = LIMIT / 4;
    const from = apns.requests.length;
    const throttledBefore = await channelTotal('apns', 'herald_channel_throttled_total');
    const limit = apnsRateLimitedPolicy({ recipientsPerSecond: quota });
    apns.answerBy(limit.policy);
    const task = await broadcastToEnd(cluster, { ...audience, list: recipients }, 'apns over its quota');

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(recipients.length);
    expect(limit.throttled).toBeGreaterThan(0);
    const repeats = expectExactAtLeastOnce(apns.requests.slice(from).map(apnsPush), limit.log, apnsToken, recipients);
    const throttles = (await channelTotal('apns', 'herald_channel_throttled_total')) - throttledBefore;
    expect(throttles).toBeGreaterThan(0);
    expect(throttles).toBeLessThanOrEqual(limit.throttled);
    await expectNoFailures('apns');
    process.stdout.write(
      `apns over a ${quota}/s quota: ${limit.throttled} of ${limit.log.length} messages throttled, ` +
        `${throttles} throttles held, ${repeats} repeats\n`,
    );
  });

  /**
   * Every `expected` uin's own device accepted a push and no one else's did; a
   * uin accepted more than once only in a batch that was throttled, at most
   * once more per throttled message of it (the batch goes again whole after
   * a throttle). `log` is the policy's, one entry per request, in order.
   * Returns how many pushes were repeats.
   */
  function expectExactAtLeastOnce(
    requests: Push[],
    log: readonly RateLimitedAnswer[],
    tokenOf: (uin: number) => string,
    expected: ArrayLike<number>,
  ): number {
    expect(log.length).toBe(requests.length);
    const throttlesOf = new Map<string, number>();
    const acceptedOf = new Map<number, Push[]>();
    requests.forEach((push, i) => {
      if (log[i]!.throttled) throttlesOf.set(push.batch, (throttlesOf.get(push.batch) ?? 0) + 1);
      else acceptedOf.set(push.uin, [...(acceptedOf.get(push.uin) ?? []), push]);
    });
    expect([...acceptedOf.keys()].sort((a, b) => a - b)).toEqual(Array.from(expected));
    const wrongDevice: Push[] = [];
    const repeatedUnthrottled: number[] = [];
    let repeats = 0;
    for (const [uin, pushes] of acceptedOf) {
      wrongDevice.push(...pushes.filter((push) => push.token !== tokenOf(uin)));
      const allowed = [...new Set(pushes.map((push) => push.batch))].reduce((n, b) => n + (throttlesOf.get(b) ?? 0), 0);
      if (pushes.length - 1 > allowed) repeatedUnthrottled.push(uin);
      repeats += pushes.length - 1;
    }
    expect(wrongDevice).toEqual([]);
    expect(repeatedUnthrottled).toEqual([]);
    return repeats;
  }

  /** One channel counter summed over the executors (since they started). */
  async function channelTotal(channel: string, metric: string): Promise<number> {
    let total = 0;
    for (const id of cluster.ids('executor')) total += await channelCounter(cluster, id, channel, metric);
    return total;
  }

  /** No message failed (5xx, timeout) on either executor: every 429 came back to the pacing as a throttle. */
  async function expectNoFailures(channel: string): Promise<void> {
    expect(await channelTotal(channel, 'herald_channel_failed_total')).toBe(0);
  }

  /** At most 1% of the messages after SETTLE_MS throttled, and the rate then at most 1.2 x the limit. */
  function expectWithinLimit(channel: string, log: readonly RateLimitedAnswer[], repeats: number): void {
    const settled = settledSending(log, SETTLE_MS);
    expect(settled.requests).toBeGreaterThan(1000);
    expect(settled.throttled).toBeLessThanOrEqual(0.01 * settled.requests);
    expect(settled.recipientsPerSecond).toBeLessThanOrEqual(1.2 * LIMIT);
    const throttled = log.filter((answer) => answer.throttled).length;
    process.stdout.write(
      `${channel} throttle: ${throttled} of ${log.length} messages throttled, ${repeats} repeats; after ` +
        `${SETTLE_MS} ms ${settled.throttled} of ${settled.requests}, ${Math.round(settled.recipientsPerSecond)} recipients/s\n`,
    );
  }

  /** Stops both executors, points the configuration's delivery at `delivery`, starts them again and waits until the dispatcher hears from both. */
  async function restartExecutorsWith(delivery: Record<string, unknown>): Promise<void> {
    const executors = cluster.processes.filter((p) => p.tier === 'executor' && p.child.exitCode === null);
    await Promise.all(executors.map((handle) => cluster.stop(handle)));
    cluster.options = { ...cluster.options, delivery };
    await writeFile(cluster.configFile, JSON.stringify(cluster.options, null, 2));
    await Promise.all(cluster.ids('executor').map((id) => cluster.start('executor', id)));
    await waitFor(
      async () => {
        const response = await fetch(`http://${cluster.managementAddress('dispatcher-1')}/status`, {
          headers: cluster.managementHeaders(),
        });
        const { hosts } = (await response.json()) as { hosts: { executorId: string; ageMs: number }[] };
        return hosts.filter((host) => host.ageMs < 1_000).length === 2;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'both executors reporting to the dispatcher again' },
    );
  }
});
