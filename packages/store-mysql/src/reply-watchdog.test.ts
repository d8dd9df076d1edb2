import net from 'node:net';
import { Duplex } from 'node:stream';
import { ErrorCodes } from '@herald/core';
import { MySqlTaskStore } from './mysql-task-store';
import { watchSocket } from './reply-watchdog';
import { migrate } from './migrate';
import { dropDatabase, TEST_MYSQL_URL, uniqueDatabase } from './test-databases';

/**
 * A TCP proxy to the test MariaDB whose open connections can be made to go
 * silent: `silence()` keeps every connection open now but forwards nothing
 * more either way, as a server that took a request and never answers (a peer
 * gone without a FIN, a server stalled in a restart). Connections made later
 * are forwarded as usual: the server is "back".
 */
class SilencingProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; silent: boolean }>();
  /** Bytes sent by a client after its connection was silenced: a request that never got to the server. */
  swallowed = 0;
  accepted = 0;

  private constructor(target: URL) {
    this.server = net.createServer((client) => {
      this.accepted++;
      const upstream = net.connect(Number(target.port || 3306), target.hostname);
      const pair = { client, upstream, silent: false };
      this.pairs.add(pair);
      client.on('data', (chunk) => (pair.silent ? (this.swallowed += chunk.length) : upstream.write(chunk)));
      upstream.on('data', (chunk) => pair.silent || client.write(chunk));
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', drop).on('error', drop);
      upstream.on('close', drop).on('error', drop);
    });
  }

  static async start(target: string): Promise<SilencingProxy> {
    const proxy = new SilencingProxy(new URL(target));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The target URL with the proxy's host and port. */
  urlFor(target: string): string {
    const url = new URL(target);
    const { port } = this.server.address() as net.AddressInfo;
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  }

  silence(): void {
    for (const pair of this.pairs) pair.silent = true;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** `promise`'s outcome, or a failure naming `what` if it has none within `ms`: a hung call fails the test instead of the suite timing out. */
async function settledWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.allSettled([promise]).then(([outcome]) => outcome!), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Well above the reply timeout below plus a fresh connection's handshake on a loaded machine. */
const CALL_DEADLINE_MS = 20_000;
const REPLY_TIMEOUT_MS = 300;

describe('MySQL reply timeout (mysql.replyTimeoutMs)', () => {
  let database: string;
  let proxy: SilencingProxy;
  let store: MySqlTaskStore | undefined;

  beforeAll(async () => {
    database = uniqueDatabase();
    await migrate(TEST_MYSQL_URL, { database });
  });
  afterAll(async () => {
    await dropDatabase(database);
  });
  beforeEach(async () => {
    proxy = await SilencingProxy.start(TEST_MYSQL_URL);
  });
  afterEach(async () => {
    await proxy.close();
    await store?.close().catch(() => undefined);
    store = undefined;
  });

  /** A store through the proxy on one pooled connection, already open (the migrations check opened it). */
  function openStore(retry: boolean): Promise<MySqlTaskStore> {
    return MySqlTaskStore.open({
      url: proxy.urlFor(TEST_MYSQL_URL),
      database,
      poolSize: 1,
      replyTimeoutMs: REPLY_TIMEOUT_MS,
      ...(retry ? { retry: { now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) } } : {}),
    });
  }

  it('fails a call the server never answers UNAVAILABLE and retriable, instead of waiting for good', async () => {
    store = await openStore(false);
    proxy.silence();
    const outcome = await settledWithin(store.getTask(1), CALL_DEADLINE_MS, 'getTask on a silent connection');
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({
      code: ErrorCodes.UNAVAILABLE,
      retriable: true,
      message: expect.stringContaining('mysql.replyTimeoutMs'),
    });
    expect(proxy.swallowed).toBeGreaterThan(0); // the request was sent, and lost
  });

  it('lets a repeatable call ride out a silent connection on a fresh one', async () => {
    store = await openStore(true);
    const before = proxy.accepted;
    proxy.silence();
    const outcome = await settledWithin(
      store.listLiveTasks(),
      CALL_DEADLINE_MS,
      'listLiveTasks on a silent connection',
    );
    expect(outcome).toEqual({ status: 'fulfilled', value: [] });
    expect(proxy.swallowed).toBeGreaterThan(0);
    expect(proxy.accepted).toBeGreaterThan(before); // answered on a new connection
  });

  it('refuses a reply timeout under 100 ms, naming the setting', async () => {
    await expect(MySqlTaskStore.open({ url: TEST_MYSQL_URL, database, replyTimeoutMs: 50 })).rejects.toMatchObject({
      code: ErrorCodes.CONFIG_INVALID,
      setting: 'mysql.replyTimeoutMs',
    });
  });
});

describe('watchSocket', () => {
  /** A packet as mysql2 writes it: 3-byte length, sequence id 0, command byte, payload. */
  const packet = (command: number, payload = Buffer.alloc(4)) =>
    Buffer.concat([Buffer.from([payload.length + 1, 0, 0, 0, command]), payload]);
  const COM_QUERY = 0x03;
  const COM_STMT_CLOSE = 0x19;

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function watched() {
    // Writes go nowhere and nothing is read unless a test emits it: a server that never answers.
    const socket = new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() }) as net.Socket;
    socket.on('error', () => undefined); // the destroy's error, read from socket.errored
    watchSocket(socket, 1000);
    return { socket };
  }

  it('drops a connection whose request hears nothing back within the timeout', () => {
    const { socket } = watched();
    socket.write(packet(COM_QUERY));
    jest.advanceTimersByTime(999);
    expect(socket.destroyed).toBe(false);
    jest.advanceTimersByTime(1);
    expect(socket.destroyed).toBe(true);
    expect(socket.errored).toMatchObject({ code: 'ETIMEDOUT', message: expect.stringContaining('1000 ms') });
  });

  it('keeps a connection that answered, or that sent only what the server never answers', () => {
    const answered = watched();
    answered.socket.write(packet(COM_QUERY));
    answered.socket.emit('data', Buffer.from([1, 0, 0, 1, 0]));
    const closedStatement = watched();
    closedStatement.socket.write(packet(COM_STMT_CLOSE));
    const idle = watched();
    jest.advanceTimersByTime(10_000);
    for (const { socket } of [answered, closedStatement, idle]) expect(socket.destroyed).toBe(false);
  });
});
