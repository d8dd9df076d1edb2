import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createPool } from 'mysql2/promise';
import { encodeRecipientList, TOPICS, type ListMeta, type Task } from '@herald/core';
import { readDeliveryFile } from '@herald/executor';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';

const run = promisify(execFile);

/** A base port whose next `size` ports are free, between 20000 and 32000 (below Linux's default ephemeral range). */
async function freeBlockBelowEphemeral(size: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * ((12_000 - size) / size)) * size;
    const free = await Promise.all(Array.from({ length: size }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free block of ports between 20000 and 32000');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
const SCRIPT = join(__dirname, '..', '..', '..', 'deploy', 'local-cluster.sh');

/**
 * deploy/local-cluster.sh as an operator runs it: start a whole cluster (2
 * interfaces, 3 schedulers, 2 dispatchers, 2 executors, a presence agent, 2
 * controllers), send a broadcast through one interface to users who are all
 * offline, read it through the other, log two of them in (the presence agent
 * tells the executors, which deliver from their offline lists), stop.
 */
jest.setTimeout(240_000);

describe('deploy/local-cluster.sh', () => {
  let dir: TempDir;
  let env: NodeJS.ProcessEnv;
  const name = `lc${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    dir = await makeTempDir('herald-local-cluster-');
    // The script uses base+1 .. base+81. Every other test binds ports the kernel hands out (the
    // ephemeral range, 32768 and up here), so a block below it cannot collide with a cluster
    // another test file starts meanwhile; the block's own ports are checked free.
    const base = await freeBlockBelowEphemeral(100);
    env = {
      ...process.env,
      HERALD_SKIP_BUILD: '1',
      HERALD_CLUSTER_DIR: dir.path,
      HERALD_CLUSTER_NAME: name,
      HERALD_BASE_PORT: String(base),
      HERALD_ZK: process.env.HERALD_TEST_ZK,
      HERALD_KAFKA_BROKERS: process.env.HERALD_TEST_KAFKA_BROKERS,
      HERALD_MYSQL_URL: process.env.HERALD_TEST_MYSQL_URL,
    };
  });

  afterAll(async () => {
    await run('bash', [SCRIPT, 'stop'], { env }).catch(() => undefined);
    const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL! });
    await pool.query(`DROP DATABASE IF EXISTS \`herald_${name}\``);
    await pool.end();
    await dir.remove();
  });

  it('starts every process, serves a broadcast on both interfaces, and stops', async () => {
    const started = await run('bash', [SCRIPT, 'start'], { env });
    expect(started.stdout).toMatch(/started interface interface-2/);
    const [first, second] = [...started.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+/g)].map((m) => m[0]);
    const status = await run('bash', [SCRIPT, 'status'], { env });
    expect(status.stdout.match(/^running /gm)).toHaveLength(12);

    const list = (await (await fetch(`${second}/api/v1/lists?accountId=smoke`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: encodeRecipientList(Array.from({ length: 20_000 }, (_, i) => 100 + 2 * i)) })).json()) as ListMeta;
    const task = (await (await fetch(`${second}/api/v1/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accountId: 'smoke', listId: list.id, content: { body: 'hi' } }) })).json()) as Task;
    let seen: Task | undefined;
    await waitFor(async () => {
      seen = (await (await fetch(`${first}/api/v1/tasks/${task.id}`)).json()) as Task;
      return seen.state === 'COMPLETED';
    }, { timeoutMs: 120_000, intervalMs: 100, message: `task not completed (last ${seen?.state})` });
    expect(seen!.report).toMatchObject({ total: 20_000, kept: 20_000, offline: 20_000, delivered: 0 });

    // Two of them log in: a login service publishes on the presence topic.
    const kafka = new Kafka({ clientId: `smoke-${name}`, brokers: process.env.HERALD_TEST_KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: `${name}.${TOPICS.presence}`, messages: [100, 39_998].map((uin) => ({ key: String(uin), value: JSON.stringify({ uin, online: true }) })) });
    await producer.disconnect();
    const atLogin = async () => {
      const uins: number[] = [];
      for (const executor of ['executor-1', 'executor-2']) {
        const records = await readDeliveryFile(join(dir.path, 'data', 'deliveries', executor), task.id);
        records.uins.forEach((uin, i) => records.atLogin[i] === 1 && uins.push(uin));
      }
      return uins.sort((a, b) => a - b);
    };
    await waitFor(async () => (await atLogin()).length === 2, { timeoutMs: 60_000, intervalMs: 100, message: 'the two users who logged in got the broadcast from their offline lists' });
    expect(await atLogin()).toEqual([100, 39_998]);

    await run('bash', [SCRIPT, 'stop'], { env });
    const after = await run('bash', [SCRIPT, 'status'], { env });
    expect(after.stdout).not.toMatch(/^running /m);
  });
});
