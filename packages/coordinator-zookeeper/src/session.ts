import { ErrorCodes, HeraldError, isHeraldError } from '@herald/core';
import type { Socket } from 'node:net';
import { createClient, CreateMode, Exception, State, type ACL, type Client, type Watcher } from 'node-zookeeper-client';
import { OPEN_ACLS, type CompiledZooKeeperAuth } from './acl';

export interface SessionEvents {
  connected(): void;
  disconnected(): void;
  expired(): void;
  /** The watchdog dropped a connection that had been silent for `silentMs`. */
  stalled(silentMs: number): void;
}

/** The socket inside node-zookeeper-client 1.1.3 (not public API; the watchdog copes with its absence). */
interface ClientInternals {
  connectionManager?: { socket?: Socket };
}

/** The library's exception, recognised by shape (its class is not exported). */
function codeOf(error: unknown): number | undefined {
  const getCode = (error as { getCode?: unknown } | null)?.getCode;
  return typeof getCode === 'function' ? (getCode.call(error) as number) : undefined;
}

const CONNECTION_CODES = new Set([Exception.CONNECTION_LOSS, Exception.OPERATION_TIMEOUT, Exception.SESSION_EXPIRED]);

export function unavailable(op: string, why: string, cause?: unknown): HeraldError {
  return new HeraldError(ErrorCodes.UNAVAILABLE, `zookeeper ${op}: ${why}`, { retriable: true, cause });
}

/** Turns whatever the client threw or called back with into a HeraldError; HeraldErrors pass through. */
export function toHeraldError(error: unknown, op: string): HeraldError {
  if (isHeraldError(error)) return error;
  const code = codeOf(error);
  if (code !== undefined && CONNECTION_CODES.has(code))
    return unavailable(op, 'connection to ZooKeeper lost; the call may or may not have taken effect', error);
  const message = error instanceof Error ? error.message : String(error);
  return new HeraldError(ErrorCodes.INTERNAL, `zookeeper ${op} failed: ${message}`, {
    cause: error,
    details: { zookeeperCode: code },
  });
}

type Done<T> = (error: unknown, value?: T) => void;

/**
 * One ZooKeeper session: a node-zookeeper-client Client and promise-returning
 * operations over it. An operation fails at once with UNAVAILABLE (retriable)
 * while the session is not connected (the library would queue it until a
 * reconnect), and with UNAVAILABLE if no answer comes within the session
 * timeout. Expected outcomes (no node, node exists, bad version, not empty)
 * are results, not errors.
 *
 * A watchdog makes up for a gap in node-zookeeper-client: it has no read
 * timeout, so a server that accepts a connection but never answers (one that
 * is still starting, or a peer behind a black hole) hangs the client for
 * good. Like ZooKeeper's Java client, a connection that has heard nothing
 * for 2/3 of the session timeout is dropped; the client then reconnects (same
 * session) as after any other drop. The client pings every third of the
 * session timeout, so a live connection is never silent that long.
 */
export class ZkSession {
  private readonly client: Client;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout;
  private watched: Socket | undefined;
  private lastHeard = 0;
  /** The ACL of every node this session creates. */
  private readonly acls: ACL[];

  constructor(
    connectionString: string,
    private readonly sessionTimeoutMs: number,
    events: SessionEvents,
    auth: CompiledZooKeeperAuth | null = null,
  ) {
    this.client = createClient(connectionString, { sessionTimeout: sessionTimeoutMs, spinDelay: 500, retries: 0 });
    // Before connect: the library sends stored credentials on every (re)connection, ahead of any request.
    if (auth !== null) this.client.addAuthInfo('digest', auth.credentials);
    this.acls = auth?.acls ?? OPEN_ACLS;
    this.client.on('connected', () => this.closed || events.connected());
    this.client.on('disconnected', () => this.closed || events.disconnected());
    this.client.on('expired', () => this.closed || events.expired());
    this.client.connect();
    this.watchdog = setInterval(() => this.checkSocket(events), Math.max(100, Math.floor(sessionTimeoutMs / 6)));
    this.watchdog.unref();
  }

  private checkSocket(events: SessionEvents): void {
    const socket = (this.client as unknown as ClientInternals).connectionManager?.socket;
    if (socket === undefined || typeof socket.destroy !== 'function') return;
    if (socket !== this.watched) {
      this.watched = socket;
      this.lastHeard = Date.now();
      socket.on('data', () => (this.lastHeard = Date.now()));
      return;
    }
    // A TCP connect in progress has its own timeout in the library.
    if (socket.connecting || socket.destroyed) return;
    const silentMs = Date.now() - this.lastHeard;
    if (silentMs <= Math.floor((this.client.getSessionTimeout() * 2) / 3)) return;
    events.stalled(silentMs);
    socket.destroy();
  }

  get connected(): boolean {
    return !this.closed && this.client.getState() === State.SYNC_CONNECTED;
  }

  /** The session id in hex, for logs (all zeros before the first connection). */
  get id(): string {
    return this.client.getSessionId().toString('hex');
  }

  /** Resolves true once connected, false if `timeoutMs` passes first. */
  waitConnected(timeoutMs: number): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onConnected = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.client.removeListener('connected', onConnected);
        resolve(false);
      }, timeoutMs);
      this.client.once('connected', onConnected);
    });
  }

  /**
   * Ends the session (its ephemeral nodes go at once when the server hears
   * it); waits up to `graceMs` for the server to close the connection.
   */
  async close(graceMs: number): Promise<void> {
    if (this.closed) return;
    const wasConnected = this.connected;
    this.closed = true;
    clearInterval(this.watchdog);
    let timer: NodeJS.Timeout | undefined;
    const gone = new Promise<void>((resolve) => {
      if (!wasConnected) return resolve();
      timer = setTimeout(resolve, graceMs);
      this.client.once('disconnected', () => resolve());
    });
    try {
      // An expired session is over already; its client stops by itself.
      if (this.client.getState() !== State.EXPIRED) this.client.close();
    } catch {
      // A client that never got a socket cannot send close-session; dropping it is enough.
    }
    await gone;
    clearTimeout(timer);
  }

  private call<T>(
    op: string,
    path: string,
    expected: readonly number[],
    invoke: (client: Client, done: Done<T>) => void,
  ): Promise<{ code: number; value?: T }> {
    const what = `${op} ${path}`;
    if (!this.connected) return Promise.reject(unavailable(what, 'not connected to ZooKeeper'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(unavailable(what, `no answer within ${this.sessionTimeoutMs} ms`));
      }, this.sessionTimeoutMs);
      const done: Done<T> = (error, value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error === null || error === undefined) return resolve({ code: Exception.OK, value });
        const code = codeOf(error);
        if (code !== undefined && expected.includes(code)) return resolve({ code });
        reject(toHeraldError(error, what));
      };
      try {
        invoke(this.client, done);
      } catch (error) {
        done(error);
      }
    });
  }

  /** The node's data and version, or undefined if there is no such node. */
  async getData(path: string): Promise<{ data: Buffer | undefined; version: number } | undefined> {
    const r = await this.call<{ data: Buffer | undefined; version: number }>(
      'getData',
      path,
      [Exception.NO_NODE],
      (c, done) =>
        c.getData(path, (error, data, stat) => done(error, error ? undefined : { data, version: stat.version })),
    );
    return r.value;
  }

  /** The node's children, or undefined if there is no such node. */
  async getChildren(path: string): Promise<string[] | undefined> {
    const r = await this.call<string[]>('getChildren', path, [Exception.NO_NODE], (c, done) =>
      c.getChildren(path, (error, children) => done(error, children)),
    );
    return r.value;
  }

  /** Whether the node exists; `watcher` fires once when it is created, changed or deleted. */
  async exists(path: string, watcher: Watcher): Promise<boolean> {
    const r = await this.call<boolean>('exists', path, [], (c, done) =>
      c.exists(path, watcher, (error, stat) => done(error, stat !== null && stat !== undefined)),
    );
    return r.value === true;
  }

  /** Creates the node; the created path (sequential nodes get a suffix), or why not. */
  async create(path: string, data: Buffer | null, mode: number): Promise<string | 'exists' | 'no-parent'> {
    const r = await this.call<string>('create', path, [Exception.NODE_EXISTS, Exception.NO_NODE], (c, done) =>
      c.create(path, data, this.acls, mode, (error, created) => done(error, created)),
    );
    if (r.code === Exception.NODE_EXISTS) return 'exists';
    if (r.code === Exception.NO_NODE) return 'no-parent';
    return r.value!;
  }

  async setData(path: string, data: Buffer, version: number): Promise<'ok' | 'bad-version' | 'no-node'> {
    const r = await this.call('setData', path, [Exception.BAD_VERSION, Exception.NO_NODE], (c, done) =>
      c.setData(path, data, version, (error) => done(error)),
    );
    return r.code === Exception.BAD_VERSION ? 'bad-version' : r.code === Exception.NO_NODE ? 'no-node' : 'ok';
  }

  /** Deletes the node if its version is `version` (-1: any). */
  async remove(path: string, version: number): Promise<'ok' | 'bad-version' | 'no-node' | 'not-empty'> {
    const r = await this.call(
      'remove',
      path,
      [Exception.BAD_VERSION, Exception.NO_NODE, Exception.NOT_EMPTY],
      (c, done) => c.remove(path, version, (error) => done(error)),
    );
    if (r.code === Exception.BAD_VERSION) return 'bad-version';
    if (r.code === Exception.NO_NODE) return 'no-node';
    if (r.code === Exception.NOT_EMPTY) return 'not-empty';
    return 'ok';
  }

  /** Creates the persistent node and any missing parents; an existing node is fine. */
  async ensurePath(path: string): Promise<void> {
    if ((await this.create(path, null, CreateMode.PERSISTENT)) !== 'no-parent') return;
    let at = '';
    for (const segment of path.slice(1).split('/')) {
      at = `${at}/${segment}`;
      await this.create(at, null, CreateMode.PERSISTENT);
    }
  }
}
