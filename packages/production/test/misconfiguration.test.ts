import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, makeTempDir, ProcessCluster, type TempDir } from '@herald/testing';
import { uniqueNames, tearDown } from './scenario';

/**
 * A misconfigured production process fails at start with one clear line
 * naming the setting to fix, and exits; it does not hang or half-start.
 */
jest.setTimeout(120_000);

describe('production process misconfiguration', () => {
  let dir: TempDir;
  let cluster: ProcessCluster;
  const names = uniqueNames('bad');
  const { tag } = names;

  beforeAll(async () => {
    dir = await makeTempDir('herald-misconfig-');
    cluster = new ProcessCluster(
      dir.path,
      { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 1, controllers: 1 },
      names,
    );
    await cluster.configure();
    await cluster.keysAndSchema();
  });

  afterAll(async () => {
    await tearDown(cluster, names, dir);
  });

  /** Starts a process with a changed config and returns what it printed on exit. */
  async function startWith(
    tier: string,
    id: string,
    change: (options: Record<string, any>) => void,
  ): Promise<{ code: number | null; lines: string[]; output: string }> {
    const options = JSON.parse(JSON.stringify(cluster.options)) as Record<string, any>;
    change(options);
    const file = join(dir.path, `bad-${randomBytes(3).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(options));
    try {
      await cluster.run(['start', tier, '--id', id, '--config', file]);
      return { code: 0, lines: [], output: '' };
    } catch (error) {
      const text = (error as Error).message;
      const output = text.slice(text.indexOf(': ', text.indexOf('exited')) + 2);
      return {
        code: Number(/exited (\d+)/.exec(text)?.[1]),
        lines: output
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('herald:')),
        output,
      };
    }
  }

  it('refuses to start without a management credential, naming management.tokenHash', async () => {
    const result = await startWith('scheduler', 'scheduler-1', (o) => delete o.management.tokenHash);
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config management\.tokenHash: is required in production/),
    ]);
  });

  it('refuses a management endpoint beyond loopback unless management.allowRemote', async () => {
    const result = await startWith(
      'scheduler',
      'scheduler-1',
      (o) => (o.management.endpoints['scheduler-1'] = '0.0.0.0:9'),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config management\.endpoints\.scheduler-1: listens beyond loopback .*allowRemote/,
      ),
    ]);
  });

  it('refuses a Kafka delivery channel with a bad topic name, naming delivery.kafka.topic', async () => {
    const brokers = process.env.HERALD_TEST_KAFKA_BROKERS!.split(',');
    const result = await startWith('executor', 'executor-1', (o) => {
      o.delivery = { kind: 'kafka', kafka: { brokers, topic: 'no spaces allowed' } };
    });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config delivery\.kafka\.topic: must be a Kafka topic name/),
    ]);
  });

  it('names delivery.kafka.brokers when an executor cannot reach the Kafka delivery channel', async () => {
    const port = await freePort();
    const result = await startWith('executor', 'executor-1', (o) => {
      o.delivery = { kind: 'kafka', kafka: { brokers: [`127.0.0.1:${port}`], topic: 'deliveries', timeoutMs: 1000 } };
    });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config delivery\.kafka\.brokers: cannot connect to Kafka at /),
    ]);
  });

  it('names delivery.zmq.serverPublicKeyFile when the push gateway key file cannot be read', async () => {
    const missing = join(dir.path, 'no-such-push.pub');
    const result = await startWith('executor', 'executor-1', (o) => {
      o.delivery = { kind: 'zmq', zmq: { endpoint: 'tcp://127.0.0.1:5600', serverPublicKeyFile: missing } };
    });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config delivery\.zmq\.serverPublicKeyFile: cannot read .*no-such-push\.pub/,
      ),
    ]);
  });

  it("never prints mysql.url's password: a malformed URL, or credentials the server refuses", async () => {
    const malformed = await startWith(
      'scheduler',
      'scheduler-1',
      (o) => (o.mysql.url = 'mysqlx://herald:S3cretPW@db.internal:3306'),
    );
    expect(malformed.lines).toEqual([
      'herald: CONFIG_INVALID: config mysql.url: must be a mysql:// URL (got "mysqlx://herald:***@db.internal:3306")',
    ]);
    const url = new URL(process.env.HERALD_TEST_MYSQL_URL!);
    url.username = 'nobody_here';
    url.password = 'S3cretPW';
    const refused = await startWith('dispatcher', 'dispatcher-1', (o) => (o.mysql.url = url.toString()));
    expect(refused.code).toBe(1);
    expect(malformed.output + refused.output).not.toContain('S3cretPW');
  });

  it('names mysql.url when the server cannot be reached', async () => {
    const port = await freePort();
    const result = await startWith('scheduler', 'scheduler-1', (o) => (o.mysql.url = `mysql://root@127.0.0.1:${port}`));
    expect(result.code).toBe(1);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(/^herald: \w+: config mysql\.url: /);
  });

  it('names mysql.url when the credentials are refused', async () => {
    const url = new URL(process.env.HERALD_TEST_MYSQL_URL!);
    url.username = 'nobody_here';
    url.password = 'wrong';
    const result = await startWith('dispatcher', 'dispatcher-1', (o) => (o.mysql.url = url.toString()));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([expect.stringMatching(/^herald: CONFIG_INVALID: config mysql\.url: /)]);
  });

  it('names mysql.database when the schema was never migrated', async () => {
    const result = await startWith('interface', 'interface-1', (o) => (o.mysql.database = `herald_never_${tag}`));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config mysql\.database: .*herald migrate/),
    ]);
  });

  it('names zookeeper.connectionString when ZooKeeper cannot be reached', async () => {
    const port = await freePort();
    const result = await startWith(
      'controller',
      'controller-1',
      (o) => (o.zookeeper = { ...o.zookeeper, connectionString: `127.0.0.1:${port}`, connectTimeoutMs: 1500 }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config zookeeper\.connectionString: /),
    ]);
  });

  it('names kafka.brokers when no broker answers', async () => {
    const port = await freePort();
    const result = await startWith(
      'executor',
      'executor-1',
      (o) => (o.kafka = { ...o.kafka, brokers: [`127.0.0.1:${port}`], connectTimeoutMs: 1500 }),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([expect.stringMatching(/^herald: CONFIG_INVALID: config kafka\.brokers: /)]);
  });

  it('names curve.keysDir when the process has no key pair', async () => {
    await rm(join(dir.path, 'keys', 'scheduler-1.key'));
    const result = await startWith('scheduler', 'scheduler-1', () => undefined);
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^herald: CONFIG_INVALID: config curve\.keysDir: cannot read .*scheduler-1\.key/),
    ]);
  });

  it('names executor.maxLoginsPending when the login queue is given no room', async () => {
    const result = await startWith('executor', 'executor-1', (o) => (o.executor = { maxLoginsPending: 0 }));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config executor\.maxLoginsPending: must be an integer in \[1, 100000000\] \(got 0\)/,
      ),
    ]);
  });

  it("names the bitmap file when the presence agent of the executor's host never created it", async () => {
    const result = await startWith('executor', 'executor-1', (o) => (o.executor = { bitmapWaitMs: 500 }));
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config topology\.presence\[0\]\.bitmapFile: .*presence-1\.bitmap does not exist after 500 ms .*start presence agent presence-1/,
      ),
    ]);
  });

  it('names the bitmap file when it is something else than a bitmap', async () => {
    await writeFile(join(dir.path, 'not-a-bitmap'), 'hello');
    const result = await startWith(
      'presence',
      'presence-1',
      (o) => (o.topology.presence[0].bitmapFile = join(dir.path, 'not-a-bitmap')),
    );
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config topology\.presence\[0\]\.bitmapFile: cannot open .*not-a-bitmap/,
      ),
    ]);
  });

  it('names the topology when the id is not in it', async () => {
    const result = await startWith('dispatcher', 'dispatcher-9', () => undefined);
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^herald: CONFIG_INVALID: config topology\.dispatchers: has no member with id "dispatcher-9"/,
      ),
    ]);
  });
});
