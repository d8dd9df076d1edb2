import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { encodeRecipientList } from '@herald/core/recipient-list';
import { TOPICS } from '@herald/core/ports';
import type { ListMeta, Task } from '@herald/core/task';
import { readDeliveryFile } from '@herald/executor';
import { authHeaders, waitFor } from '@herald/testing';
import { scriptCluster, type ScriptCluster } from './script-cluster';

/**
 * deploy/local-cluster.sh as an operator runs it: start a whole cluster (2
 * interfaces, 3 schedulers, 2 dispatchers, 2 executors, a presence agent, 2
 * controllers), send a broadcast through one interface to users who are all
 * offline, read it through the other, log two of them in (the presence agent
 * tells the executors, which deliver from their offline lists), stop.
 */
jest.setTimeout(240_000);

describe('deploy/local-cluster.sh', () => {
  let cluster: ScriptCluster;

  beforeAll(async () => {
    cluster = await scriptCluster('lc');
  });

  afterAll(async () => {
    await cluster?.remove();
  });

  it('starts every process, serves a broadcast on both interfaces, and stops', async () => {
    const started = await cluster.script('start');
    expect(started.stdout).toMatch(/started interface interface-2/);
    const [first, second] = [...started.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+/g)].map((m) => m[0]);
    const status = await cluster.script('status');
    expect(status.stdout.match(/^running /gm)).toHaveLength(12);

    const list = (await (
      await fetch(`${second}/api/v1/lists?accountId=smoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', ...authHeaders() },
        body: encodeRecipientList(Array.from({ length: 20_000 }, (_, i) => 100 + 2 * i)),
      })
    ).json()) as ListMeta;
    const task = (await (
      await fetch(`${second}/api/v1/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders() },
        body: JSON.stringify({ accountId: 'smoke', listId: list.id, content: { body: 'hi' } }),
      })
    ).json()) as Task;
    let seen: Task | undefined;
    await waitFor(
      async () => {
        seen = (await (await fetch(`${first}/api/v1/tasks/${task.id}`, { headers: authHeaders() })).json()) as Task;
        return seen.state === 'COMPLETED';
      },
      { timeoutMs: 120_000, intervalMs: 100, message: `task not completed (last ${seen?.state})` },
    );
    expect(seen!.report).toMatchObject({ total: 20_000, kept: 20_000, offline: 20_000, delivered: 0 });

    // Two of them log in: a login service publishes on the presence topic.
    const kafka = new Kafka({
      clientId: `smoke-${cluster.name}`,
      brokers: process.env.HERALD_TEST_KAFKA_BROKERS!.split(','),
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: `${cluster.name}.${TOPICS.presence}`,
      messages: [100, 39_998].map((uin) => ({ key: String(uin), value: JSON.stringify({ uin, online: true }) })),
    });
    await producer.disconnect();
    const atLogin = async () => {
      const uins: number[] = [];
      for (const executor of ['executor-1', 'executor-2']) {
        const records = await readDeliveryFile(join(cluster.dir.path, 'data', 'deliveries', executor), task.id);
        records.uins.forEach((uin, i) => records.atLogin[i] === 1 && uins.push(uin));
      }
      return uins.sort((a, b) => a - b);
    };
    await waitFor(async () => (await atLogin()).length === 2, {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: 'the two users who logged in got the broadcast from their offline lists',
    });
    expect(await atLogin()).toEqual([100, 39_998]);

    await cluster.script('stop');
    const after = await cluster.script('status');
    expect(after.stdout).not.toMatch(/^running /m);
  });
});
