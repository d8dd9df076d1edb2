import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '@herald/core/task';
import { syntheticAudience } from '@herald/audience';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import {
  makeTempDir,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  ZmqPushReceiver,
  type TempDir,
  type ZmqPushAnswer,
} from '@herald/testing';
import * as zmq from 'zeromq';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * The ZeroMQ push gateway end to end: an embedded cluster configured with
 * `delivery.kind: 'zmq'` (CURVE, its keys read from files), broadcasting a
 * few thousand recipients to the reference push service. The service sees
 * exactly the online recipients, once each, in requests keyed as the
 * contract says; rejected recipients come back as the task's dead letters.
 */
describe('broadcast through the ZeroMQ push gateway', () => {
  let dir: TempDir;
  let receiver: ZmqPushReceiver;
  let cluster: EmbeddedCluster;
  const uinSpaceBits = 22;
  const audience = syntheticAudience({ recipients: 6_000, onlineFraction: 0.5, uinLimit: 2 ** uinSpaceBits, seed: 26 });
  const onlineSet = new Set(audience.online);
  const online = audience.distinct.filter((uin) => onlineSet.has(uin));

  beforeAll(async () => {
    dir = await makeTempDir('herald-zmq-delivery-');
    const server = zmq.curveKeyPair();
    await writeFile(join(dir.path, 'push.pub'), `${server.publicKey}\n`);
    await writeFile(join(dir.path, 'executor.key'), JSON.stringify(zmq.curveKeyPair()), { mode: 0o600 });
    receiver = await ZmqPushReceiver.start({ curve: server });
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
      dispatcher: { batchSize: 500, unitSize: 2000 },
      delivery: {
        kind: 'zmq',
        zmq: {
          endpoint: receiver.endpoint,
          serverPublicKeyFile: join(dir.path, 'push.pub'),
          keyPairFile: join(dir.path, 'executor.key'),
          maxInFlight: 8,
        },
      },
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await dir?.remove();
  });

  async function broadcast(body: string): Promise<Task> {
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes(audience.list));
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: list.body.id,
      content: { body },
    });
    expect(created.status).toBe(201);
    return waitForEnd(cluster, created.body.id);
  }

  it('delivers to exactly the online recipients, once each, keyed as the contract says', async () => {
    const task = await broadcast('through zmq');
    expect(task.state).toBe('COMPLETED');
    expect(task.report.delivered).toBe(online.length);
    // Nothing failed in this run, so nothing was sent twice: the exact set, no repeats.
    expect(receiver.uinsOf(task.id)).toEqual([...online]);
    for (const request of receiver.requests.filter((r) => r.taskId === task.id))
      expect(request.idempotencyKey).toBe(
        `${task.id}:P:${request.uins[0]}:${request.uins.at(-1)}:${request.uins.length}`,
      );
  });

  it('counts the recipients the service rejects as dead letters by reason, and delivers the rest', async () => {
    const rejectedOf = (uins: number[]) =>
      uins.filter((uin) => uin % 13 === 0).map((uin) => ({ uin, reason: 'unregistered' }));
    receiver.answerBy((request): ZmqPushAnswer => ({ kind: 'accept', rejected: rejectedOf(request.uins) }));
    const task = await broadcast('some unregistered');
    const unregistered = online.filter((uin) => uin % 13 === 0);
    expect(task.state).toBe('COMPLETED');
    expect(task.report.deadLetters).toEqual({ unregistered: unregistered.length });
    expect(task.report.delivered).toBe(online.length - unregistered.length);
    expect(receiver.uinsOf(task.id)).toEqual([...online.filter((uin) => uin % 13 !== 0)]);
  });
});
