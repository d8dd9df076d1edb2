import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { ProcessCluster, type ProcessHandle } from './process-cluster';
import { TEST_AUTH_OPTIONS } from './access-tokens';
import { TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS } from './cluster-options';
import { waitFor } from './wait-for';

const run = promisify(execFile);

/** deploy/netns-cluster.sh of this checkout: it makes and removes the namespaces. */
export const NETNS_SCRIPT = join(__dirname, '..', '..', '..', 'deploy', 'netns-cluster.sh');
const MAIN = join(__dirname, '..', '..', 'cli', 'dist', 'main.js');

/** What runs on one host: tier and id of each process (a presence agent's executors are the host's). */
export type HostProcesses = { tier: string; id: string }[];

/** Fixed ports: every host has an address of its own, so every host uses the same ones. */
const PORTS = {
  scheduler: { endpoint: 7101, control: 7102, membership: 7103 },
  dispatcher: { endpoint: 7201, membership: 7203 },
  executor: { endpoint: 7301, realtime: 7302, membership: 7303 },
  interface: { http: 8080, membership: 7403 },
} as const;
const MANAGEMENT_BASE = 9101;

async function script(...args: string[]): Promise<string> {
  return (await run('bash', [NETNS_SCRIPT, ...args])).stdout.trim();
}

/**
 * A production-profile cluster whose hosts are Linux network namespaces on one
 * bridge (deploy/netns-cluster.sh, docs/multi-host.md): each host has its own
 * address, its own data directory (`<dir>/hosts/<n>/data`), its own config file
 * (the cluster's, with that dataDir) and, when it runs a presence agent, its
 * own bitmap file. MariaDB, ZooKeeper and the Kafka mock of the run stay on
 * 127.0.0.1 of the root namespace and are relayed onto the bridge's services
 * address (and the Kafka ports onto 127.0.0.1 inside every host, where the
 * mock's metadata sends clients). Needs root, iproute2 and socat.
 *
 * Hosts listed with `later: true` are in the topology but get a namespace and
 * processes only at addHost(): a host added during a broadcast.
 */
export class NetnsCluster extends ProcessCluster {
  private subnet = '';
  private readonly hostOf = new Map<string, number>();
  private readonly made = new Set<number>();

  constructor(
    dir: string,
    readonly hosts: { processes: HostProcesses; later?: boolean }[],
    names: { database: string; zkRoot: string; topicPrefix: string },
    /** The test bed's name: its namespaces are `<net>-<n>`, its bridge `<net>-br` (at most 11 of [a-z0-9]). */
    readonly net: string,
    readonly apta = { helloIntervalMs: 100, deadIntervalMs: 600, silencePeriodMs: 600 },
  ) {
    super(dir, { interfaces: 0, schedulers: 0, dispatchers: 0, executors: 0, controllers: 0 }, names);
    hosts.forEach((h, i) => h.processes.forEach((p) => this.hostOf.set(p.id, i + 1)));
  }

  /** Removes test beds named `prefix*` whose owner process is gone (a crashed run's leftovers). */
  static async sweep(prefix: string): Promise<string> {
    return script('sweep', '--prefix', prefix);
  }

  /** Makes the namespaces of every host not marked `later`, and the relays to the run's servers. */
  async up(): Promise<void> {
    const initial = this.hosts.findIndex((h) => h.later === true);
    const count = initial === -1 ? this.hosts.length : initial;
    this.subnet = await script('up', '--name', this.net, '--hosts', String(count), '--owner', String(process.pid));
    for (let i = 1; i <= count; i++) this.made.add(i);
    const mysql = new URL(process.env.HERALD_TEST_MYSQL_URL!);
    const zkPort = process.env.HERALD_TEST_ZK!.split(':')[1]!;
    const kafkaPorts = process.env.HERALD_TEST_KAFKA_BROKERS!.split(',').map((b) => b.split(':')[1]!);
    await script(
      'services',
      '--name',
      this.net,
      '--ports',
      [mysql.port || '3306', zkPort].join(','),
      '--loopback-ports',
      kafkaPorts.join(','),
    );
  }

  /** Removes every namespace, relay and process of the test bed (safe to call twice, or after a failed up). */
  async down(): Promise<void> {
    await script('down', '--name', this.net);
  }

  get services(): string {
    return `${this.subnet}.1`;
  }

  address(host: number): string {
    return `${this.subnet}.${10 + host}`;
  }

  hostDir(host: number): string {
    return join(this.dir, 'hosts', String(host));
  }

  dataDirOf(host: number): string {
    return join(this.hostDir(host), 'data');
  }

  /** The host process `id` runs on (1-based). */
  host(id: string): number {
    return this.hostOf.get(id)!;
  }

  configOf(host: number): string {
    return join(this.hostDir(host), 'herald.json');
  }

  override ids(tier: string): string[] {
    return this.hosts.flatMap((h) => h.processes.filter((p) => p.tier === tier).map((p) => p.id));
  }

  override bitmapFile(id: string): string {
    return join(this.hostDir(this.host(id)), 'online.bitmap');
  }

  override get url(): string {
    return `http://${this.address(this.host(this.ids('interface')[0]!))}:${PORTS.interface.http}`;
  }

  override async configure(extra: Record<string, unknown> = {}): Promise<void> {
    const at = (id: string, port: number) => `tcp://${this.address(this.host(id))}:${port}`;
    const endpoints: Record<string, string> = {};
    for (const h of this.hosts)
      h.processes.forEach((p, k) => (endpoints[p.id] = `${this.address(this.host(p.id))}:${MANAGEMENT_BASE + k}`));
    const mysql = new URL(process.env.HERALD_TEST_MYSQL_URL!);
    mysql.hostname = this.services;
    const zkPort = process.env.HERALD_TEST_ZK!.split(':')[1]!;
    const brokers = process.env.HERALD_TEST_KAFKA_BROKERS!.split(',').map((b) => `${this.services}:${b.split(':')[1]}`);
    const interfaceHost = this.address(this.host(this.ids('interface')[0]!));
    this.options = {
      profile: 'production',
      // Each host's file replaces it with the host's own (configOf below).
      dataDir: this.dataDirOf(1),
      uinSpaceBits: 24,
      scheduler: { tickMs: 100 },
      dispatcher: { batchSize: 1000, unitSize: 20_000 },
      offline: { rangeBits: 12 },
      http: { host: interfaceHost, port: PORTS.interface.http },
      mysql: { url: mysql.toString().replace(/\/$/, ''), database: this.names.database },
      zookeeper: { connectionString: `${this.services}:${zkPort}`, root: this.names.zkRoot, sessionTimeoutMs: 4000 },
      kafka: { brokers, topicPrefix: this.names.topicPrefix },
      curve: { keysDir: join(this.dir, 'keys') },
      topology: {
        schedulers: this.ids('scheduler').map((id) => ({
          id,
          endpoint: at(id, PORTS.scheduler.endpoint),
          controlEndpoint: at(id, PORTS.scheduler.control),
          membership: at(id, PORTS.scheduler.membership),
        })),
        dispatchers: this.ids('dispatcher').map((id) => ({
          id,
          endpoint: at(id, PORTS.dispatcher.endpoint),
          membership: at(id, PORTS.dispatcher.membership),
        })),
        executors: this.ids('executor').map((id) => ({
          id,
          endpoint: at(id, PORTS.executor.endpoint),
          realtimeEndpoint: at(id, PORTS.executor.realtime),
          membership: at(id, PORTS.executor.membership),
        })),
        presence: this.ids('presence').map((id) => ({
          id,
          bitmapFile: this.bitmapFile(id),
          executors: this.ids('executor').filter((e) => this.host(e) === this.host(id)),
        })),
        interfaces: this.ids('interface').map((id) => ({ id, membership: at(id, PORTS.interface.membership) })),
      },
      apta: this.apta,
      management: {
        endpoints,
        allowRemote: true,
        faults: true,
        drainTimeoutMs: 20_000,
        tokenHash: createHash('sha256').update(this.managementToken).digest('hex'),
      },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 1000, burst: 2000 } },
      tasks: TEST_TASK_OPTIONS,
      campaigns: TEST_CAMPAIGN_OPTIONS,
      ...extra,
    };
    // The list directory is the one thing hosts share (docs/production.md: the interfaces write lists, the
    // dispatchers read them; NFS or the like in a real cluster): here each host's is a link to one directory.
    await mkdir(join(this.dir, 'shared-lists'), { recursive: true, mode: 0o700 });
    for (let host = 1; host <= this.hosts.length; host++) {
      await mkdir(this.dataDirOf(host), { recursive: true, mode: 0o700 });
      await symlink(join(this.dir, 'shared-lists'), join(this.dataDirOf(host), 'lists'));
      await writeFile(this.configOf(host), JSON.stringify({ ...this.options, dataDir: this.dataDirOf(host) }, null, 2));
    }
    // Commands run from the test (migrate, admin) use host 1's file: every host's differs only in dataDir.
    this.configFile = this.configOf(1);
  }

  /** Only the agents running now: a host not made yet, or lost, has none to wait for. */
  protected override presenceAgents(): string[] {
    return this.ids('presence').filter((id) => this.runningOn(this.host(id)).some((p) => p.id === id));
  }

  /** Starts one process inside its host's namespace and waits for its "started" line. */
  override async start(tier: string, id: string, extraArgs: string[] = []): Promise<ProcessHandle> {
    const host = this.host(id);
    // The script execs `ip netns exec`, which execs node: the child's pid is herald's own.
    const child = spawn(
      'bash',
      [
        NETNS_SCRIPT,
        'exec',
        '--name',
        this.net,
        '--host',
        String(host),
        '--',
        process.execPath,
        MAIN,
        'start',
        tier,
        '--id',
        id,
        '--config',
        this.configOf(host),
        ...extraArgs,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const handle: ProcessHandle = { tier, id, child, output: '' };
    child.stdout.on('data', (c: Buffer) => (handle.output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (handle.output += c.toString()));
    this.processes.push(handle);
    await waitFor(() => /^herald: .* started/m.test(handle.output) || child.exitCode !== null, {
      timeoutMs: 60_000,
      message: `${tier} ${id} did not start on host ${host}`,
    });
    if (child.exitCode !== null) throw new Error(`${tier} ${id} exited ${child.exitCode}: ${handle.output}`);
    return handle;
  }

  /** Starts the processes of every host made so far: inboxes first, then presence agents, then the rest. */
  override async startAll(): Promise<void> {
    for (const tier of ['scheduler', 'dispatcher', 'presence', 'executor', 'controller', 'interface'])
      await Promise.all(
        this.ids(tier)
          .filter((id) => this.made.has(this.host(id)))
          .map((id) => this.start(tier, id)),
      );
  }

  /** Makes host `n`'s namespace (a host marked `later`) and starts its processes. */
  async addHost(host: number): Promise<void> {
    await script('add-host', '--name', this.net, '--host', String(host));
    this.made.add(host);
    for (const tier of ['presence', 'executor', 'scheduler', 'dispatcher', 'controller', 'interface'])
      for (const p of this.hosts[host - 1]!.processes.filter((p) => p.tier === tier)) await this.start(p.tier, p.id);
  }

  /** Cuts (`down`) or heals (`up`) host `n`'s link, inside its namespace. */
  async link(host: number, state: 'up' | 'down'): Promise<void> {
    await script('link', '--name', this.net, '--host', String(host), state);
  }

  /** Partitions host `n` from the other hosts (`on`), keeping its way to the services address, or heals it (`off`). */
  async isolate(host: number, state: 'on' | 'off'): Promise<void> {
    await script('isolate', '--name', this.net, '--host', String(host), state);
  }

  /** The running processes of host `n`. */
  runningOn(host: number): ProcessHandle[] {
    return this.processes.filter(
      (p) => this.host(p.id) === host && p.child.exitCode === null && p.child.signalCode === null,
    );
  }

  /** A dead host: every process SIGKILLed, then its data directory deleted (a dead disk). */
  async loseHost(host: number): Promise<void> {
    await Promise.all(this.runningOn(host).map((p) => this.stop(p, 'SIGKILL')));
    await rm(this.dataDirOf(host), { recursive: true, force: true });
  }
}
