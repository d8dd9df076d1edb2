import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS } from '@herald/core/ports';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './services/process-util';
import { TEST_AUTH_OPTIONS } from './access-tokens';
import { TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS } from './cluster-options';
import { waitFor } from './wait-for';

/** The compiled `herald` command of this checkout. */
const MAIN = join(__dirname, '..', '..', 'cli', 'dist', 'main.js');

export interface ClusterShape {
  interfaces: number;
  schedulers: number;
  dispatchers: number;
  executors: number;
  controllers: number;
  /** Presence agents; the executors are split evenly between them, as if on that many hosts. Default 1. */
  presence?: number;
  /** APTA timers: when set, every scheduler, dispatcher, executor and interface gets a membership endpoint and the ring is APTA's. */
  apta?: { helloIntervalMs: number; deadIntervalMs: number; silencePeriodMs: number };
}

export interface ProcessHandle {
  tier: string;
  id: string;
  child: ChildProcess;
  output: string;
}

/**
 * A production-profile cluster of real processes (`herald start <tier>`) on
 * 127.0.0.1, against the run's MariaDB, ZooKeeper and Kafka (HERALD_TEST_*
 * variables), with its own database, znode root, topic prefix, key directory
 * and data directory. The production tests and bench/production.js use it.
 */
export class ProcessCluster {
  readonly processes: ProcessHandle[] = [];
  httpPorts: number[] = [];
  configFile = '';
  options: Record<string, unknown> = {};
  /** Node options every process is started with, before the CLI (e.g. bench/production.js --breakdown's `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs: string[] = [];
  /** The cluster's management token (its hash is management.tokenHash); `herald admin` gets it through HERALD_MANAGEMENT_TOKEN. */
  readonly managementToken = `hmt_${randomBytes(24).toString('base64url')}`;

  constructor(
    readonly dir: string,
    readonly shape: ClusterShape,
    readonly names: { database: string; zkRoot: string; topicPrefix: string },
  ) {}

  async configure(extra: Record<string, unknown> = {}): Promise<void> {
    // freePort() can hand out one port twice when asked twice before either is bound: take distinct ones.
    const taken = new Set<number>();
    const port = async (): Promise<number> => {
      for (;;) {
        const candidate = await freePort();
        if (!taken.has(candidate)) return (taken.add(candidate), candidate);
      }
    };
    const apta = this.shape.apta;
    const membership = async () => (apta === undefined ? {} : { membership: `tcp://127.0.0.1:${await port()}` });
    const members = async (prefix: string, n: number) => {
      const list = [];
      for (let i = 0; i < n; i++)
        list.push({ id: `${prefix}-${i + 1}`, endpoint: `tcp://127.0.0.1:${await port()}`, ...(await membership()) });
      return list;
    };
    await writeFile(this.managementTokenFile, `${this.managementToken}\n`, { mode: 0o600 });
    this.httpPorts = [];
    for (let i = 0; i < this.shape.interfaces; i++) this.httpPorts.push(await port());
    // Every process gets a management endpoint (herald admin), with the fault routes on.
    const endpoints: Record<string, string> = {};
    for (const id of ['interface', 'scheduler', 'dispatcher', 'executor', 'presence', 'controller'].flatMap((t) =>
      this.ids(t),
    ))
      endpoints[id] = `127.0.0.1:${await port()}`;
    this.options = {
      profile: 'production',
      dataDir: join(this.dir, 'data'),
      uinSpaceBits: 24,
      scheduler: { tickMs: 100 },
      dispatcher: { batchSize: 1000, unitSize: 20_000 },
      offline: { rangeBits: 12 },
      http: { host: '127.0.0.1', port: this.httpPorts[0] },
      mysql: { url: process.env.HERALD_TEST_MYSQL_URL!, database: this.names.database },
      zookeeper: { connectionString: process.env.HERALD_TEST_ZK!, root: this.names.zkRoot, sessionTimeoutMs: 4000 },
      kafka: { brokers: process.env.HERALD_TEST_KAFKA_BROKERS!.split(','), topicPrefix: this.names.topicPrefix },
      curve: { keysDir: join(this.dir, 'keys') },
      topology: {
        // Schedulers get a control inbox: commands are not queued behind progress reports.
        schedulers: await Promise.all(
          (await members('scheduler', this.shape.schedulers)).map(async (m) => ({
            ...m,
            controlEndpoint: `tcp://127.0.0.1:${await port()}`,
          })),
        ),
        dispatchers: await members('dispatcher', this.shape.dispatchers),
        // Executors get a real-time inbox (real-time batches do not queue behind normal ones) and a
        // channel inbox (a throttle one executor takes holds the others: docs/delivery.md).
        executors: await Promise.all(
          (await members('executor', this.shape.executors)).map(async (m) => ({
            ...m,
            realtimeEndpoint: `tcp://127.0.0.1:${await port()}`,
            channelEndpoint: `tcp://127.0.0.1:${await port()}`,
          })),
        ),
        presence: this.ids('presence').map((id, i, agents) => ({
          id,
          bitmapFile: this.bitmapFile(id),
          executors: this.ids('executor').filter((_, e) => e % agents.length === i),
        })),
        ...(apta === undefined
          ? {}
          : {
              interfaces: await members('interface', this.shape.interfaces).then((list) =>
                list.map(({ id, membership: m }) => ({ id, membership: m })),
              ),
            }),
      },
      ...(apta === undefined ? {} : { apta }),
      management: {
        endpoints,
        faults: true,
        drainTimeoutMs: 20_000,
        tokenHash: createHash('sha256').update(this.managementToken).digest('hex'),
        // The interfaces ask the executors for their delivery records with it (docs/recipient-truth.md).
        tokenFile: this.managementTokenFile,
      },
      // The test admin (TEST_ADMIN_TOKEN, authHeaders()) exists from the first interface start; polls are not rate limited.
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 1000, burst: 2000 } },
      // An immediate task sends at once (no undo window): the tests wait for delivery, not for grace.
      tasks: TEST_TASK_OPTIONS,
      // Campaigns may fire every second, to be seen firing within a test.
      campaigns: TEST_CAMPAIGN_OPTIONS,
      ...extra,
    };
    this.configFile = join(this.dir, 'herald.json');
    await writeFile(this.configFile, JSON.stringify(this.options, null, 2));
  }

  /** The file holding the management token (management.tokenFile). */
  get managementTokenFile(): string {
    return join(this.dir, 'management.token');
  }

  /** The management endpoint of process `id`. */
  managementAddress(id: string): string {
    return (this.options.management as { endpoints: Record<string, string> }).endpoints[id]!;
  }

  /** Headers that authenticate a request to a management endpoint. */
  managementHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.managementToken}` };
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPorts[0]}`;
  }

  /** Where presence agent `id` keeps its host's online bitmap. */
  bitmapFile(id: string): string {
    return join(this.dir, `${id}.bitmap`);
  }

  ids(tier: string): string[] {
    const n = {
      interface: this.shape.interfaces,
      scheduler: this.shape.schedulers,
      dispatcher: this.shape.dispatchers,
      executor: this.shape.executors,
      presence: this.shape.presence ?? 1,
      controller: this.shape.controllers,
    }[tier]!;
    return Array.from({ length: n }, (_, i) => `${tier}-${i + 1}`);
  }

  /** Runs a herald command to completion; rejects with its output on a non-zero exit. */
  run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HERALD_MANAGEMENT_TOKEN: this.managementToken },
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.on('close', (code) =>
        code === 0 ? resolve(output) : reject(new Error(`herald ${args.join(' ')} exited ${code}: ${output}`)),
      );
    });
  }

  /** `herald admin <words> --config <this cluster's config>`, e.g. admin('fault', 'scheduler-1', '--traffic-cut', 'on'). */
  admin(...words: string[]): Promise<string> {
    return this.run(['admin', ...words, '--config', this.configFile]);
  }

  async keysAndSchema(): Promise<void> {
    const all = ['interface', 'scheduler', 'dispatcher', 'executor', 'presence', 'controller'].flatMap((t) =>
      this.ids(t),
    );
    await this.run(['keys', '--dir', join(this.dir, 'keys'), ...all]);
    await this.run(['migrate', '--config', this.configFile]);
  }

  /** Starts one process and waits for its "started" line. */
  async start(tier: string, id: string, extraArgs: string[] = []): Promise<ProcessHandle> {
    const child = spawn(
      process.execPath,
      [...this.nodeArgs, MAIN, 'start', tier, '--id', id, '--config', this.configFile, ...extraArgs],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const handle: ProcessHandle = { tier, id, child, output: '' };
    child.stdout!.on('data', (c: Buffer) => (handle.output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (handle.output += c.toString()));
    this.processes.push(handle);
    // The process's own line ("herald: <description> started"), not a component's JSON log line that says started.
    await waitFor(() => /^herald: .* started/m.test(handle.output) || child.exitCode !== null, {
      timeoutMs: 60_000,
      message: `${tier} ${id} did not start`,
    });
    if (child.exitCode !== null) throw new Error(`${tier} ${id} exited ${child.exitCode}: ${handle.output}`);
    return handle;
  }

  async startAll(): Promise<void> {
    // Inboxes first (schedulers, dispatchers), then the presence agents (executors map their bitmaps), then the rest.
    for (const tier of ['scheduler', 'dispatcher', 'presence', 'executor', 'controller'])
      await Promise.all(this.ids(tier).map((id) => this.start(tier, id)));
    await Promise.all(
      this.ids('interface').map((id, i) => this.start('interface', id, ['--port', String(this.httpPorts[i])])),
    );
  }

  /** The management status of process `id` (GET /status). */
  async status(id: string): Promise<Record<string, unknown>> {
    const response = await fetch(`http://${this.managementAddress(id)}/status`, { headers: this.managementHeaders() });
    if (!response.ok) throw new Error(`GET /status of ${id}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  }

  /**
   * Waits until every running process says it is ready (its warm-up done,
   * docs/operations.md "Readiness"), as a load balancer or an orchestrator's
   * readiness probe would before sending it work.
   */
  async waitForReady(timeoutMs = 60_000): Promise<void> {
    const running = this.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    let last: unknown[] = [];
    try {
      await waitFor(
        async () => {
          last = await Promise.all(running.map(async (p) => ({ id: p.id, ...(await this.status(p.id)) })));
          return last.every((status) => (status as { ready?: unknown }).ready === true);
        },
        { timeoutMs, intervalMs: 100, message: 'every process ready' },
      );
    } catch (error) {
      throw new Error(`processes not ready: ${JSON.stringify(last)}`, { cause: error });
    }
  }

  async stop(handle: ProcessHandle, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (handle.child.exitCode !== null || handle.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => handle.child.once('exit', () => resolve()));
    handle.child.kill(signal);
    await exited;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => this.stop(p)));
  }

  /**
   * Publishes login events for `uins` on the presence topic, as a login
   * service would: at the pace the presence agents read them. librdkafka's
   * mock cluster keeps at most 5 MiB (or 100,000 message sets) per partition
   * and deletes the oldest beyond that, like size retention; a publisher that
   * runs far ahead of the agents would have the mock delete logins before any
   * agent read them (3 million logins published at once lost half). So after
   * each chunk it waits until every agent's group is within `maxLagPerPartition`
   * events of the end of every partition (about 2.6 MB at this event size).
   * Production topics are compacted (core's TOPIC_CLEANUP), so there a replay
   * sees every user's last event however far behind the agent is.
   */
  async publishOnline(uins: Uint32Array, options: { maxLagPerPartition?: number } = {}): Promise<void> {
    const maxLag = options.maxLagPerPartition ?? 40_000;
    const topic = this.names.topicPrefix + TOPICS.presence;
    const producer = this.kafka().producer();
    await producer.connect();
    try {
      for (let i = 0; i < uins.length; i += 10_000) {
        await producer.send({
          topic,
          messages: Array.from(uins.subarray(i, i + 10_000), (uin) => ({
            key: String(uin),
            value: JSON.stringify({ uin, online: true }),
            timestamp: String(Date.now()),
          })),
        });
        if ((i / 10_000) % 10 === 9) await this.waitForPresence({ maxLagPerPartition: maxLag });
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** Waits until every presence agent's consumer group is within `maxLagPerPartition` (default 0: has applied the whole presence topic). */
  async waitForPresence(options: { maxLagPerPartition?: number } = {}): Promise<void> {
    const maxLag = options.maxLagPerPartition ?? 0;
    const admin = this.kafka().admin();
    await admin.connect();
    try {
      const topic = this.names.topicPrefix + TOPICS.presence;
      const ends = await admin.fetchTopicOffsets(topic);
      const end = (p: number) => Number(ends.find((e) => e.partition === p)!.offset);
      await waitFor(
        async () => {
          for (const id of this.presenceAgents()) {
            const generation = (await readFile(`${this.bitmapFile(id)}.generation`, 'utf8')).trim();
            const [offsets] = await admin.fetchOffsets({
              groupId: `${this.names.topicPrefix}presence-${id}-${generation}`,
              topics: [topic],
            });
            // A group with nothing committed yet answers -1: it has read nothing.
            if (!offsets || offsets.partitions.some((p) => end(p.partition) - Math.max(0, Number(p.offset)) > maxLag))
              return false;
          }
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 200, message: 'presence agents did not catch up with the presence topic' },
      );
    } finally {
      await admin.disconnect();
    }
  }

  /** The presence agents waitForPresence waits on: every one of the shape. */
  protected presenceAgents(): string[] {
    return this.ids('presence');
  }

  kafka(): Kafka {
    return new Kafka({
      clientId: `test-${this.names.topicPrefix}`,
      brokers: process.env.HERALD_TEST_KAFKA_BROKERS!.split(','),
      logLevel: logLevel.NOTHING,
    });
  }

  /** Output of every process, for failure messages: the last 3,000 characters of each. */
  logs(): string {
    return this.processes.map((p) => `--- ${p.tier} ${p.id}\n${p.output.slice(-3000)}`).join('\n');
  }

  /**
   * Writes each process's whole output to `<dir>/<n>-<tier>-<id>.log` (n: the
   * order it started in, so a restarted process keeps each life's log) and
   * returns the files written.
   */
  async writeLogs(dir: string): Promise<string[]> {
    await mkdir(dir, { recursive: true });
    return Promise.all(
      this.processes.map(async (p, n) => {
        const file = join(dir, `${String(n + 1).padStart(2, '0')}-${p.tier}-${p.id}.log`);
        await writeFile(file, p.output);
        return file;
      }),
    );
  }
}
