import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syntheticAudience } from '@herald/audience';
import {
  makeTempDir,
  ProcessCluster,
  settledSending,
  type TempDir,
  zmqRateLimitedPolicy,
  ZmqPushReceiver,
} from '@herald/testing';
import * as zmq from 'zeromq';
import { startWithAudience, tearDown, uniqueNames } from './scenario';
import { broadcastToEnd, SETTLE_MS, THROTTLE_CLUSTER, THROTTLE_LIMIT } from './throttle-broadcast';

/**
 * Issue 20's throttle test for the ZeroMQ push gateway, on the production
 * profile: two executors, each its own process, broadcast 10^5 recipients
 * to the reference push service (CURVE on), which accepts at most
 * THROTTLE_LIMIT recipients/s in all and acknowledges a batch above it
 * `throttled` with the wait in milliseconds. The broadcast completes exact
 * (every online recipient accepted once: a throttled batch is not accepted,
 * so it goes again whole), at most 1% of the requests after the first
 * SETTLE_MS are throttled, and the send rate the service's own log shows
 * after it is not above the limit by more than 20%. How close below the
 * limit it comes depends on the machine's load: a timing, so reported
 * (bench/RESULTS.md), not asserted.
 */
jest.setTimeout(240_000);

describe('production profile: a broadcast through a throttling ZeroMQ push service', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  let receiver: ZmqPushReceiver;
  const names = uniqueNames('zmqthrottle');
  const audience = syntheticAudience({ recipients: 100_000, onlineFraction: 0.9, uinLimit: 2 ** 24, seed: 20 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-production-zmq-throttle-');
    const server = zmq.curveKeyPair();
    await writeFile(join(dir.path, 'push.pub'), `${server.publicKey}\n`);
    receiver = await ZmqPushReceiver.start({ curve: server });
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
      names,
    );
    await startWithAudience(cluster, audience, {
      delivery: {
        kind: 'zmq',
        zmq: {
          endpoint: receiver.endpoint,
          serverPublicKeyFile: join(dir.path, 'push.pub'),
          timeoutMs: 10_000,
          pacing: { minRate: 1000, maxRate: THROTTLE_LIMIT },
        },
      },
      ...THROTTLE_CLUSTER,
    });
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
    await receiver?.stop();
  });

  it('completes exact, within the limit, with at most 1% of requests throttled after the start', async () => {
    const limit = zmqRateLimitedPolicy({ recipientsPerSecond: THROTTLE_LIMIT });
    receiver.answerBy(limit.policy);
    const task = await broadcastToEnd(cluster, audience, 'throttled zmq');

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    // Every online recipient accepted, and only once.
    expect(receiver.uinsOf(task.id)).toEqual([...online]);
    expect(receiver.unreadable).toEqual([]);
    expect(limit.throttled + limit.accepted).toBe(receiver.requests.length);
    const settled = settledSending(limit.log, SETTLE_MS);
    expect(settled.requests).toBeGreaterThan(100);
    expect(settled.throttled).toBeLessThanOrEqual(0.01 * settled.requests);
    expect(settled.recipientsPerSecond).toBeLessThanOrEqual(1.2 * THROTTLE_LIMIT);
    process.stdout.write(
      `zmq throttle: ${limit.throttled} of ${receiver.requests.length} requests throttled; after ${SETTLE_MS} ms ` +
        `${settled.throttled} of ${settled.requests}, ${Math.round(settled.recipientsPerSecond)} recipients/s\n`,
    );
  });

  /**
   * The same service with the channel's bounds raised to twice its limit
   * (the management endpoint, on each executor): now it does throttle, and
   * each throttled acknowledge is the pacing's throttle (counted as one by
   * the executors, held for the wait it names, the batch sent again whole),
   * so the broadcast still completes exact.
   */
  it('with the bounds above the service limit: throttled batches wait and go again, exact', async () => {
    for (const id of cluster.ids('executor')) {
      const answer = await fetch(`http://${cluster.managementAddress(id)}/channels/limits`, {
        method: 'POST',
        headers: { ...cluster.managementHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'zmq', maxRate: 2 * THROTTLE_LIMIT }),
      });
      expect(answer.status).toBe(200);
    }
    const limit = zmqRateLimitedPolicy({ recipientsPerSecond: THROTTLE_LIMIT });
    receiver.answerBy(limit.policy);
    const task = await broadcastToEnd(cluster, audience, 'throttled zmq, bounds above the limit');

    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    expect(limit.throttled).toBeGreaterThan(0);
    expect(receiver.uinsOf(task.id)).toEqual([...online]);
    // Every throttled acknowledge came back to the pacing as a throttle, not a failure.
    let throttled = 0;
    let failed = 0;
    for (const id of cluster.ids('executor')) {
      throttled += await channelCount(id, 'herald_channel_throttled_total');
      failed += await channelCount(id, 'herald_channel_failed_total');
    }
    expect([throttled, failed]).toEqual([limit.throttled, 0]);
  });

  /** One of an executor's zmq channel counters, from its management endpoint. */
  async function channelCount(id: string, metric: string): Promise<number> {
    const response = await fetch(`http://${cluster.managementAddress(id)}/metrics`, {
      headers: cluster.managementHeaders(),
    });
    const line = (await response.text()).split('\n').find((l) => l.startsWith(`${metric}{channel="zmq"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }
});
