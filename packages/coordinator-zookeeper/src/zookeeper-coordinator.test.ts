import { randomUUID } from 'node:crypto';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { ErrorCodes, isHeraldError } from '@herald/core';
import type { Coordinator, Election, Logger, UnitCheckpoint } from '@herald/core/ports';
import { coordinatorConformance, freePort, rejectsWithCode, TestZooKeeper, waitFor } from '@herald/testing';
import { createClient, Exception } from 'node-zookeeper-client';
import { ZooKeeperCoordinator } from './zookeeper-coordinator';

const SHARED_ZK = process.env.HERALD_TEST_ZK;
if (SHARED_ZK === undefined)
  throw new Error('HERALD_TEST_ZK is not set: run through jest, whose global setup starts ZooKeeper');

/** A root no other test uses. */
const uniqueRoot = (): string => `/herald-test/${randomUUID()}`;

/** Deletes `root` and everything under it, with a client of its own. */
async function removeTree(connectionString: string, root: string): Promise<void> {
  const client = createClient(connectionString, { sessionTimeout: 5000 });
  client.connect();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cleanup: cannot reach ZooKeeper at ${connectionString}`)), 10_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  try {
    const remove = async (path: string): Promise<void> => {
      const children = await new Promise<string[]>((resolve, reject) =>
        client.getChildren(path, (error, names) =>
          error === null ? resolve(names) : error.getCode() === Exception.NO_NODE ? resolve([]) : reject(error),
        ),
      );
      for (const child of children) await remove(`${path}/${child}`);
      await new Promise<void>((resolve, reject) =>
        client.remove(path, -1, (error) =>
          error === null || error.getCode() === Exception.NO_NODE ? resolve() : reject(error),
        ),
      );
    };
    await remove(root);
  } finally {
    client.close();
  }
}

coordinatorConformance('ZooKeeperCoordinator', async () => {
  const root = uniqueRoot();
  return {
    connect: () =>
      ZooKeeperCoordinator.connect({
        connectionString: SHARED_ZK,
        root,
        sessionTimeoutMs: 4000,
        connectTimeoutMs: 5000,
      }),
    cleanup: () => removeTree(SHARED_ZK, root),
  };
});

const checkpoint = (unitNo: number, offset: number): UnitCheckpoint => ({
  taskId: 42,
  unitNo,
  epoch: 1,
  checkpoint: offset,
  delivered: offset,
  offline: 0,
  at: 1_700_000_000_000 + offset,
});

/** Resolves with the error once `call` fails with a retriable UNAVAILABLE. */
async function waitForUnavailable(call: () => Promise<unknown>, message: string): Promise<void> {
  await waitFor(
    async () => {
      try {
        await call();
        return false;
      } catch (error) {
        return isHeraldError(error) && error.code === ErrorCodes.UNAVAILABLE && error.retriable;
      }
    },
    { timeoutMs: 20_000, intervalMs: 50, message },
  );
}

/** Waits until `call` succeeds (it fails with UNAVAILABLE while ZooKeeper is away) and returns its result. */
async function eventually<T>(call: () => Promise<T>, message: string): Promise<T> {
  let result: T | undefined;
  await waitFor(
    async () => {
      result = await call();
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 100, message },
  );
  return result as T;
}

async function exactlyOneLeader(elections: readonly Election[], message: string): Promise<Election> {
  let leader: Election | undefined;
  await waitFor(
    async () => {
      const leaders = elections.filter((e) => e.isLeader());
      if (leaders.length !== 1) return false;
      leader = leaders[0]!;
      const named = await Promise.all(elections.map((e) => e.leader()));
      return named.every((id) => id === leader!.candidateId);
    },
    { timeoutMs: 30_000, intervalMs: 50, message },
  );
  return leader!;
}

/**
 * A TCP proxy in front of ZooKeeper: `cut()` drops every connection and
 * refuses new ones (the peer sees a reset), `blackhole()` keeps connections
 * open but silently drops every byte both ways (packets lost, nothing reset),
 * `restore()` lets new connections through again.
 */
class Partition {
  private mode: 'open' | 'cut' | 'blackhole' = 'open';
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async open(targetPort: number): Promise<Partition> {
    const port = await freePort();
    const server = createServer();
    const partition = new Partition(server, port);
    server.on('connection', (socket) => partition.accept(socket, targetPort));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return partition;
  }

  get connectionString(): string {
    return `127.0.0.1:${this.port}`;
  }

  cut(): void {
    this.mode = 'cut';
    for (const socket of this.sockets) socket.destroy();
  }

  blackhole(): void {
    this.mode = 'blackhole';
  }

  restore(): void {
    this.mode = 'open';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    if (this.mode === 'cut') return void client.destroy();
    const upstream = tcpConnect({ host: '127.0.0.1', port: targetPort });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('error', () => undefined);
      from.on('close', () => {
        this.sockets.delete(from);
        // Behind a black hole not even a reset gets through.
        if (this.mode !== 'blackhole') to.destroy();
      });
      from.on('data', (chunk) => {
        if (this.mode === 'open') to.write(chunk);
      });
    }
  }
}

/** A logger that keeps what it was told, to check which session events happened. */
function recordingLogger(): Logger & { events: Record<string, unknown>[] } {
  const events: Record<string, unknown>[] = [];
  const keep = (message: string, fields?: Record<string, unknown>): void => void events.push({ message, ...fields });
  return { events, debug: keep, info: keep, warn: keep, error: keep };
}

describe('ZooKeeperCoordinator', () => {
  it('fails to connect to an unreachable server with a ConfigError naming zookeeper.connectionString', async () => {
    const port = await freePort();
    const error = await rejectsWithCode(
      ZooKeeperCoordinator.connect({
        connectionString: `127.0.0.1:${port}`,
        root: uniqueRoot(),
        sessionTimeoutMs: 2000,
        connectTimeoutMs: 1000,
      }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(error.details.setting).toBe('zookeeper.connectionString');
    expect(error.message).toContain('zookeeper.connectionString');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toContain('\n');
  });

  it('refuses bad settings with a ConfigError naming each one, before connecting', async () => {
    const good = { connectionString: SHARED_ZK, root: uniqueRoot() };
    const cases: [Record<string, unknown>, string][] = [
      [{ connectionString: '' }, 'zookeeper.connectionString'],
      [{ connectionString: 'zk1' }, 'zookeeper.connectionString'],
      [{ connectionString: 'zk1:2181,' }, 'zookeeper.connectionString'],
      [{ connectionString: 'zk1:99999' }, 'zookeeper.connectionString'],
      [{ root: 'herald' }, 'zookeeper.root'],
      [{ root: '/' }, 'zookeeper.root'],
      [{ root: '/herald/' }, 'zookeeper.root'],
      [{ root: '/herald//prod' }, 'zookeeper.root'],
      [{ root: '/herald/../prod' }, 'zookeeper.root'],
      [{ root: '/zookeeper/herald' }, 'zookeeper.root'],
      [{ sessionTimeoutMs: 0 }, 'zookeeper.sessionTimeoutMs'],
      [{ sessionTimeoutMs: 1.5 }, 'zookeeper.sessionTimeoutMs'],
      [{ connectTimeoutMs: -1 }, 'zookeeper.connectTimeoutMs'],
    ];
    for (const [override, setting] of cases) {
      const error = await rejectsWithCode(
        ZooKeeperCoordinator.connect({ ...good, ...override } as never),
        ErrorCodes.CONFIG_INVALID,
      );
      expect(error.details.setting).toBe(setting);
    }
  });

  it('checkpoints: keeps the others when one unit is removed, and survives removing the last unit of a task', async () => {
    const root = uniqueRoot();
    const c = await ZooKeeperCoordinator.connect({ connectionString: SHARED_ZK, root });
    try {
      await c.putCheckpoint(checkpoint(0, 10));
      await c.putCheckpoint(checkpoint(1, 20));
      const [first, second] = await c.listCheckpoints(42);
      expect(await c.removeCheckpoint(42, 0, first!.version)).toBe(true);
      expect((await c.listCheckpoints()).map((s) => s.unitNo)).toEqual([1]);
      expect(await c.removeCheckpoint(42, 1, second!.version)).toBe(true);
      expect(await c.listCheckpoints()).toEqual([]);
      await c.putCheckpoint(checkpoint(3, 30));
      expect((await c.listCheckpoints(42)).map((s) => s.checkpoint)).toEqual([30]);
    } finally {
      await c.close();
      await removeTree(SHARED_ZK, root);
    }
  });
});

describe('ZooKeeperCoordinator faults (a private ZooKeeper)', () => {
  let zk: TestZooKeeper;
  let root: string;
  const opened: Coordinator[] = [];

  async function connect(
    connectionString: string,
    extra: { sessionTimeoutMs?: number; logger?: Logger } = {},
  ): Promise<Coordinator> {
    const coordinator = await ZooKeeperCoordinator.connect({
      connectionString,
      root,
      sessionTimeoutMs: extra.sessionTimeoutMs ?? 4000,
      connectTimeoutMs: 10_000,
      logger: extra.logger,
    });
    opened.push(coordinator);
    return coordinator;
  }

  beforeAll(async () => {
    zk = await TestZooKeeper.start();
  }, 60_000);
  afterAll(async () => {
    await zk?.destroy();
  });
  beforeEach(() => {
    root = uniqueRoot();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    await removeTree(zk.connectionString, root);
  });

  it('comes back after ZooKeeper restarts: a leader again, old checkpoints kept, new ones written', async () => {
    const participants = [
      await connect(zk.connectionString),
      await connect(zk.connectionString),
      await connect(zk.connectionString),
    ];
    const elections = await Promise.all(participants.map((c, i) => c.elect('controller', `controller-${i}`)));
    await exactlyOneLeader(elections, 'a leader before the restart');
    await participants[0]!.putCheckpoint(checkpoint(0, 100));
    await participants[1]!.putCheckpoint(checkpoint(1, 200));

    await zk.stop();
    await waitForUnavailable(
      () => participants[2]!.listCheckpoints(),
      'calls to fail with UNAVAILABLE while ZooKeeper is down',
    );
    await waitFor(() => elections.every((e) => !e.isLeader()), {
      timeoutMs: 20_000,
      message: 'no candidate to count itself leader while ZooKeeper is down',
    });

    await zk.restart();
    await exactlyOneLeader(elections, 'a leader again after the restart');
    const before = await eventually(
      () => participants[2]!.listCheckpoints(42),
      'checkpoints readable after the restart',
    );
    expect(before.map((s) => [s.unitNo, s.checkpoint])).toEqual([
      [0, 100],
      [1, 200],
    ]);
    await eventually(
      () => participants[0]!.putCheckpoint(checkpoint(0, 300)),
      'a checkpoint written after the restart',
    );
    expect((await participants[1]!.getCheckpoint(42, 0))?.checkpoint).toBe(300);
  });

  it('recovers from an expired session without exiting: a new session, the candidate back in line, calls working', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('process.exit called');
    }) as never);
    const partition = await Partition.open(zk.port);
    try {
      const logger = recordingLogger();
      const cut = await connect(partition.connectionString, { sessionTimeoutMs: 2000, logger });
      const direct = await connect(zk.connectionString);
      const cutElection = await cut.elect('controller', 'behind-partition');
      const directElection = await direct.elect('controller', 'direct');
      expect(await exactlyOneLeader([cutElection, directElection], 'the first candidate leads')).toBe(cutElection);
      await cut.putCheckpoint(checkpoint(0, 10));

      partition.cut();
      await waitForUnavailable(() => cut.getCheckpoint(42, 0), 'UNAVAILABLE while partitioned');
      expect(cutElection.isLeader()).toBe(false);
      // The server expires the partitioned session: its candidate node goes and the other takes over.
      await waitFor(() => directElection.isLeader(), {
        timeoutMs: 30_000,
        message: 'the direct candidate to lead once the partitioned session expired',
      });

      partition.restore();
      await waitFor(() => logger.events.some((e) => e.event === 'session_expired'), {
        timeoutMs: 30_000,
        message: 'the adapter to learn its session expired',
      });
      const stored = await eventually(() => cut.getCheckpoint(42, 0), 'calls to work again on the new session');
      expect(stored?.checkpoint).toBe(10);
      await cut.putCheckpoint(checkpoint(0, 20));
      expect((await direct.getCheckpoint(42, 0))?.checkpoint).toBe(20);

      // Back in line behind the leader that took over, not leading.
      await waitFor(async () => (await cutElection.leader()) === 'direct', {
        timeoutMs: 10_000,
        message: 'the partitioned candidate to see the new leader',
      });
      expect(cutElection.isLeader()).toBe(false);
      const heard: boolean[] = [];
      cutElection.onChange((leader) => heard.push(leader));
      await directElection.resign();
      await waitFor(() => cutElection.isLeader(), {
        timeoutMs: 10_000,
        message: 'the rejoined candidate to lead after the other resigns',
      });
      expect(heard).toEqual([true]);
      expect(await directElection.leader()).toBe('behind-partition');
      expect(exit).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
      await partition.close();
    }
  });

  it('steps a leader down when its connection goes silent (a black hole), and recovers when it lifts', async () => {
    const partition = await Partition.open(zk.port);
    try {
      const logger = recordingLogger();
      const silent = await connect(partition.connectionString, { sessionTimeoutMs: 2000, logger });
      const direct = await connect(zk.connectionString);
      const silentElection = await silent.elect('controller', 'behind-black-hole');
      const directElection = await direct.elect('controller', 'direct');
      expect(await exactlyOneLeader([silentElection, directElection], 'the first candidate leads')).toBe(
        silentElection,
      );

      partition.blackhole();
      // Nothing resets the connection: only the adapter's own silence check can notice.
      await waitFor(() => !silentElection.isLeader(), {
        timeoutMs: 20_000,
        message: 'the silenced leader to step down',
      });
      await waitForUnavailable(() => silent.listCheckpoints(), 'UNAVAILABLE behind the black hole');
      await waitFor(() => directElection.isLeader(), {
        timeoutMs: 30_000,
        message: 'the other candidate to lead once the silent session expired',
      });

      partition.restore();
      await eventually(() => silent.putCheckpoint(checkpoint(0, 5)), 'calls to work again once the black hole lifts');
      expect((await direct.getCheckpoint(42, 0))?.checkpoint).toBe(5);
      await waitFor(async () => (await silentElection.leader()) === 'direct', {
        timeoutMs: 10_000,
        message: 'the silenced candidate to see the new leader',
      });
      expect(silentElection.isLeader()).toBe(false);
    } finally {
      await partition.close();
    }
  });
});
