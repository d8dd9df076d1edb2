/**
 * The conformance suites against the adapters as production wires them
 * (adapters.ts: the compiled config's settings, and the explicit per-method
 * retries), not only the bare adapters their own packages test; and what the
 * retries must never do: repeat an audit append whose reply was lost after
 * the server committed it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { compileConfig, type HeraldConfig } from '@herald/core/config';
import { ErrorCodes } from '@herald/core';
import { noopLogger } from '@herald/core/ports';
import { migrate, type MySqlAttributeIndex } from '@herald/store-mysql';
import {
  accessStoreConformance,
  accountStoreConformance,
  campaignStoreConformance,
  coordinatorConformance,
  eventBusConformance,
  frequencyCounterConformance,
  rejectsWithCode,
  taskStoreConformance,
  useMigratedDatabases,
  userAttributeLookupConformance,
  waitFor,
} from '@herald/testing';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import {
  connectCoordinator,
  connectEventBus,
  openAccessStore,
  openAccountStore,
  openCampaignStore,
  openFrequencyCounter,
  openTaskStore,
  openUserAttributeLookup,
} from './adapters';

jest.setTimeout(120_000);

const MYSQL_URL = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const brokers = (process.env.HERALD_TEST_KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const zookeeper = process.env.HERALD_TEST_ZK ?? '127.0.0.1:1';

/** A production config on `database` (and, for the bus and the coordinator, this run's Kafka mock and ZooKeeper). */
function productionConfig(
  database: string,
  { mysqlUrl = MYSQL_URL, poolSize = 4, root = '/herald' } = {},
): HeraldConfig {
  const tcp = (port: number) => `tcp://127.0.0.1:${port}`;
  return compileConfig({
    profile: 'production',
    dataDir: '/nonexistent',
    uinSpaceBits: 24,
    mysql: { url: mysqlUrl, database, poolSize },
    kafka: {
      brokers: brokers.length > 0 ? brokers : ['127.0.0.1:1'],
      topicPrefix: `wired-${randomBytes(4).toString('hex')}.`,
    },
    zookeeper: { connectionString: zookeeper, root, sessionTimeoutMs: 4000, connectTimeoutMs: 5000 },
    curve: { keysDir: '/nonexistent' },
    topology: {
      schedulers: [{ id: 'scheduler-1', endpoint: tcp(1) }],
      dispatchers: [{ id: 'dispatcher-1', endpoint: tcp(2) }],
      executors: [{ id: 'executor-1', endpoint: tcp(3) }],
      presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/none', executors: ['executor-1'] }],
    },
  });
}

/** A connection to MYSQL_URL's server, or to `database` on it. */
function connect(database?: string) {
  const url = new URL(MYSQL_URL);
  return createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(database === undefined ? {} : { database }),
  });
}

async function sql<T extends RowDataPacket[]>(text: string, database?: string): Promise<T> {
  const conn = await connect(database);
  try {
    return (await conn.query<T>(text))[0];
  } finally {
    await conn.end();
  }
}

/**
 * Migrated databases the tests take turns on, each handed out as just
 * migrated: a fresh database per test cost most of this file's time.
 */
const databases = useMigratedDatabases({
  connect,
  migrate: (database) => migrate(MYSQL_URL, { database }),
  prefix: 'herald_test_wired_',
});

/** A migrated database for one test, and how to give it back. */
async function migratedDatabase(): Promise<{ database: string; release: () => Promise<void> }> {
  const lent = await databases.acquire();
  return { database: lent.name, release: lent.release };
}

/** Opens a production-wired MySQL adapter on a fresh migrated database, for a conformance suite. */
function wired<S>(open: (config: HeraldConfig) => Promise<S>) {
  return async () => {
    const { database, release } = await migratedDatabase();
    try {
      return { store: await open(productionConfig(database)), cleanup: release };
    } catch (error) {
      await release();
      throw error;
    }
  };
}

taskStoreConformance(
  'production openTaskStore',
  wired((config) => openTaskStore(config, noopLogger)),
);
accessStoreConformance(
  'production openAccessStore',
  wired((config) => openAccessStore(config, noopLogger)),
);
campaignStoreConformance(
  'production openCampaignStore',
  wired((config) => openCampaignStore(config, noopLogger)),
);
accountStoreConformance(
  'production openAccountStore',
  wired((config) => openAccountStore(config, noopLogger)),
);
// The suite writes users through the index it reads from: openUserAttributeLookup's adapter is one.
userAttributeLookupConformance(
  'production openUserAttributeLookup',
  wired(async (config) => (await openUserAttributeLookup(config, noopLogger)) as MySqlAttributeIndex),
);

frequencyCounterConformance('production openFrequencyCounter', async () => {
  const { database, release } = await migratedDatabase();
  const open = () => openFrequencyCounter(productionConfig(database), noopLogger);
  return { store: await open(), reopen: open, cleanup: release };
});

eventBusConformance('production connectEventBus', async () => {
  if (brokers.length === 0)
    throw new Error('HERALD_TEST_KAFKA_BROKERS is not set (jest global setup starts the kcat mock cluster)');
  return {
    store: await connectEventBus(
      productionConfig('unused'),
      `conformance-${randomBytes(3).toString('hex')}`,
      noopLogger,
    ),
    cleanup: async () => undefined,
  };
});

coordinatorConformance('production connectCoordinator', async () => {
  if (process.env.HERALD_TEST_ZK === undefined)
    throw new Error('HERALD_TEST_ZK is not set (jest global setup starts ZooKeeper)');
  // Each test's namespace is a root of its own; ZooKeeper keeps the empty tree, as the adapter's own suite leaves it.
  const config = productionConfig('unused', { root: `/herald-test/${randomUUID()}` });
  return { connect: () => connectCoordinator(config, noopLogger), cleanup: async () => undefined };
});

/**
 * A TCP proxy in front of MariaDB that can lose one reply: the next chunk the
 * client sends is passed to the server, the client's connection is dropped at
 * once, and the server's answer (sent once it has run the statement) is
 * thrown away, as when a network fails right after a commit.
 */
class ReplyLosingProxy {
  /** Replies thrown away: the server has answered (and so committed) each. */
  repliesLost = 0;
  private loseNext = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => this.relay(client));

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  loseNextReply(): void {
    this.loseNext = true;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    }
    let losing = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      if (!this.loseNext) return;
      this.loseNext = false;
      losing = true;
      client.destroy();
    });
    upstream.on('data', (chunk) => {
      if (!losing) {
        client.write(chunk);
        return;
      }
      this.repliesLost++;
      upstream.destroy();
    });
    client.on('close', () => {
      if (!losing) upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  }
}

describe('production retries (adapters.ts)', () => {
  let database: string;
  let release: () => Promise<void>;
  let proxy: ReplyLosingProxy;
  let config: HeraldConfig;

  beforeEach(async () => {
    ({ database, release } = await migratedDatabase());
    const target = new URL(MYSQL_URL);
    proxy = new ReplyLosingProxy({ host: target.hostname, port: Number(target.port || 3306) });
    const port = await proxy.listen();
    const through = new URL(MYSQL_URL);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    // One pooled connection: the warm-up call prepares the audit INSERT on it, so the call under test sends one EXECUTE.
    config = productionConfig(database, { mysqlUrl: through.toString(), poolSize: 1 });
  });

  afterEach(async () => {
    await proxy.close();
    await release();
  });

  const entry = (action: string) => ({
    at: 1_700_000_000_000,
    tokenId: 'ops1',
    tokenName: 'ops',
    action,
    accountId: null,
    resource: null,
    status: 200,
  });
  const auditRows = async (action: string) =>
    Number(
      (await sql<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM audit_log WHERE action = '${action}'`, database))[0]!.n,
    );

  it('never repeats an audit append whose reply was lost after the commit: exactly one row', async () => {
    const store = await openAccessStore(config, noopLogger);
    try {
      await store.appendAudit(entry('warm-up'));
      proxy.loseNextReply();
      await rejectsWithCode(store.appendAudit(entry('lost-reply')), ErrorCodes.UNAVAILABLE);
      await waitFor(() => proxy.repliesLost === 1, { message: 'the server answered the lost INSERT' });
      expect(await auditRows('lost-reply')).toBe(1);
      // The store still works: the next append is a row of its own.
      await store.appendAudit(entry('after'));
      expect(await auditRows('after')).toBe(1);
      expect(await auditRows('lost-reply')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('does retry a call that is safe to repeat when its reply is lost', async () => {
    const store = await openAccessStore(config, noopLogger);
    try {
      await store.appendAudit(entry('listed'));
      expect((await store.listAudit()).entries).toHaveLength(1);
      proxy.loseNextReply();
      expect((await store.listAudit()).entries).toHaveLength(1);
      await waitFor(() => proxy.repliesLost === 1, { message: 'the first listing was answered, and its reply lost' });
    } finally {
      await store.close();
    }
  });
});
