import {
  byUnit,
  checkCandidateId,
  checkCheckpoint,
  checkRole,
  checkUnitKey,
  supersedes,
  type Coordinator,
  type Election,
  type Logger,
  type StoredCheckpoint,
  type UnitCheckpoint,
} from '@herald/core/ports';
import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import { CreateMode, Exception } from 'node-zookeeper-client';
import { ZooKeeperElection, type ElectionHost } from './election';
import { decodeCheckpoint, encodeCheckpoint, Layout, parseCount } from './layout';
import { compileZooKeeperOptions, type CompiledZooKeeperOptions, type ZooKeeperCoordinatorOptions } from './options';
import { ZkSession } from './session';

/** Compare-and-set rounds a put may lose to concurrent writers before it gives up (retriable). */
const MAX_PUT_ROUNDS = 100;
/** Parallel reads when listing checkpoints. */
const READ_CONCURRENCY = 64;
/** How long close waits for the server to end the session. */
const CLOSE_GRACE_MS = 2000;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The production Coordinator on ZooKeeper (node-zookeeper-client). Layout in
 * ./layout.ts and docs/architecture.md ("ZooKeeper layout").
 *
 * Sessions: the adapter owns one session at a time. On a disconnection every
 * candidate stops counting itself leader and calls fail with UNAVAILABLE
 * (retriable) until the client reconnects. When ZooKeeper reports the session
 * expired, the adapter opens a new one and every candidate rejoins its line
 * at the back; the process keeps running (it never exits over its
 * coordination session).
 */
export class ZooKeeperCoordinator implements Coordinator, ElectionHost {
  readonly layout: Layout;
  readonly logger: Logger;
  private current: ZkSession;
  private sessions = 0;
  private closed = false;
  private readonly elections = new Set<ZooKeeperElection>();

  private constructor(private readonly options: CompiledZooKeeperOptions) {
    this.layout = new Layout(options.root);
    this.logger = options.logger;
    this.current = this.openSession();
  }

  /**
   * Connects and prepares the namespace. Fails with a ConfigError naming the
   * bad setting, or naming `zookeeper.connectionString` when no server
   * answers within `connectTimeoutMs`.
   */
  static async connect(options: ZooKeeperCoordinatorOptions): Promise<ZooKeeperCoordinator> {
    const compiled = compileZooKeeperOptions(options);
    const coordinator = new ZooKeeperCoordinator(compiled);
    try {
      if (!(await coordinator.current.waitConnected(compiled.connectTimeoutMs))) {
        throw new ConfigError(
          'zookeeper.connectionString',
          `no ZooKeeper server answered at ${compiled.connectionString} within ${compiled.connectTimeoutMs} ms`,
        );
      }
      await coordinator.prepareNamespace();
    } catch (error) {
      await coordinator.close();
      throw error;
    }
    return coordinator;
  }

  /**
   * Creates the namespace's nodes (with this session's ACL) and reads them
   * back, so that credentials which cannot reach nodes made by another
   * identity fail the start naming `zookeeper.auth` instead of every later call.
   */
  private async prepareNamespace(): Promise<void> {
    const { auth, root } = this.options;
    try {
      await this.current.ensurePath(this.layout.checkpoints);
      await this.current.ensurePath(this.layout.election);
      await this.current.getChildren(this.layout.checkpoints);
    } catch (error) {
      if (!isNoAuth(error)) throw error;
      const why = auth === null ? 'is not set, and' : `(user ${auth.user}) gives no access:`;
      throw new ConfigError(
        'zookeeper.auth',
        `${why} ${root} is protected by ACLs of another identity (NoAuth); give the credentials its znodes were created with`,
      );
    }
    if (auth !== null)
      this.logger.info('zookeeper: authenticated; new znodes are creator-only', {
        root,
        user: auth.user,
        monitorRead: auth.acls.length > 1,
      });
    else
      this.logger.warn('zookeeper: zookeeper.auth is not set; znodes are created world-open (world:anyone:cdrwa)', {
        root,
      });
  }

  /** The session in use (ElectionHost). */
  get session(): ZkSession {
    return this.current;
  }

  /** Increases with every new session (ElectionHost). */
  get generation(): number {
    return this.sessions;
  }

  assertOpen(op: string): void {
    if (this.closed)
      throw new HeraldError(ErrorCodes.STORE_CLOSED, `ZooKeeperCoordinator.${op}: the coordinator is closed`);
  }

  release(election: ZooKeeperElection): void {
    this.elections.delete(election);
  }

  async elect(role: string, candidateId: string): Promise<Election> {
    this.assertOpen('elect');
    checkRole(role);
    checkCandidateId(candidateId);
    const election = new ZooKeeperElection(this, role, candidateId);
    this.elections.add(election);
    try {
      await election.join();
    } catch (error) {
      // Withdraw what may have been created before the failure; a node left behind goes with the session.
      election.resign().catch(() => undefined);
      throw error;
    }
    return election;
  }

  async putCheckpoint(checkpoint: UnitCheckpoint): Promise<void> {
    this.assertOpen('putCheckpoint');
    checkCheckpoint(checkpoint);
    const { taskId, unitNo } = checkpoint;
    const path = this.layout.unit(taskId, unitNo);
    const data = encodeCheckpoint(checkpoint);
    for (let round = 0; round < MAX_PUT_ROUNDS; round++) {
      const session = this.current;
      const read = await session.getData(path);
      if (read === undefined) {
        const created = await session.create(path, data, CreateMode.PERSISTENT);
        if (created === 'no-parent') await session.ensurePath(this.layout.task(taskId));
        if (created === 'exists' || created === 'no-parent') continue;
        return;
      }
      const stored = decodeCheckpoint(taskId, unitNo, read.data, read.version);
      if (stored === undefined)
        this.logger.error('zookeeper: replacing a checkpoint znode that holds no checkpoint', { path });
      else if (!supersedes(checkpoint, stored)) return;
      if ((await session.setData(path, data, read.version)) === 'ok') return;
    }
    throw new HeraldError(
      ErrorCodes.VERSION_CONFLICT,
      `zookeeper putCheckpoint ${path}: lost ${MAX_PUT_ROUNDS} compare-and-set rounds to other writers`,
      {
        retriable: true,
        details: { taskId, unitNo },
      },
    );
  }

  async getCheckpoint(taskId: number, unitNo: number): Promise<StoredCheckpoint | undefined> {
    this.assertOpen('getCheckpoint');
    checkUnitKey(taskId, unitNo);
    const path = this.layout.unit(taskId, unitNo);
    const read = await this.current.getData(path);
    if (read === undefined) return undefined;
    const stored = decodeCheckpoint(taskId, unitNo, read.data, read.version);
    if (stored === undefined)
      throw new HeraldError(ErrorCodes.INTERNAL, `zookeeper: ${path} holds no checkpoint`, { details: { path } });
    return stored;
  }

  async listCheckpoints(taskId?: number): Promise<StoredCheckpoint[]> {
    this.assertOpen('listCheckpoints');
    if (taskId !== undefined) checkUnitKey(taskId);
    const session = this.current;
    let taskIds: number[];
    if (taskId !== undefined) taskIds = [taskId];
    else
      taskIds = ((await session.getChildren(this.layout.checkpoints)) ?? [])
        .map(parseCount)
        .filter((id): id is number => id !== undefined);
    const units = (
      await mapLimit(taskIds, READ_CONCURRENCY, async (id) =>
        ((await session.getChildren(this.layout.task(id))) ?? []).flatMap((name) => {
          const unitNo = parseCount(name);
          return unitNo === undefined ? [] : [{ taskId: id, unitNo }];
        }),
      )
    ).flat();
    const read = await mapLimit(units, READ_CONCURRENCY, async ({ taskId: id, unitNo }) => {
      const path = this.layout.unit(id, unitNo);
      const node = await session.getData(path);
      if (node === undefined) return undefined; // removed meanwhile
      const stored = decodeCheckpoint(id, unitNo, node.data, node.version);
      if (stored === undefined)
        this.logger.error('zookeeper: skipping a checkpoint znode that holds no checkpoint', { path });
      return stored;
    });
    return read.filter((c): c is StoredCheckpoint => c !== undefined).sort(byUnit);
  }

  async removeCheckpoint(taskId: number, unitNo: number, version: number): Promise<boolean> {
    this.assertOpen('removeCheckpoint');
    checkUnitKey(taskId, unitNo);
    if (!Number.isSafeInteger(version) || version < 0) return false;
    const session = this.current;
    if ((await session.remove(this.layout.unit(taskId, unitNo), version)) !== 'ok') return false;
    // Tidy the task's node once its last unit is gone; a concurrent put recreates it.
    await session.remove(this.layout.task(taskId), -1).catch(() => undefined);
    return true;
  }

  /** Ends the session: this process's candidates leave their lines at once; later calls fail with STORE_CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const election of this.elections) election.shutdown();
    this.elections.clear();
    await this.current.close(Math.min(CLOSE_GRACE_MS, this.options.connectTimeoutMs));
    this.logger.info('zookeeper: coordinator closed', { root: this.options.root });
  }

  private openSession(): ZkSession {
    const generation = ++this.sessions;
    const session: ZkSession = new ZkSession(
      this.options.connectionString,
      this.options.sessionTimeoutMs,
      {
        connected: () => {
          if (generation !== this.sessions) return;
          this.logger.info('zookeeper: connected', { root: this.options.root, session: session.id, generation });
          for (const election of this.elections) election.schedule();
        },
        disconnected: () => {
          if (generation !== this.sessions) return;
          this.logger.warn('zookeeper: disconnected; calls fail with UNAVAILABLE until the client reconnects', {
            root: this.options.root,
            session: session.id,
          });
          for (const election of this.elections) election.suspend();
        },
        stalled: (silentMs) => {
          if (generation !== this.sessions) return;
          this.logger.warn('zookeeper: no answer on the connection; dropping it to reconnect', {
            root: this.options.root,
            session: session.id,
            silentMs,
          });
        },
        expired: () => {
          if (generation !== this.sessions || this.closed) return;
          this.logger.warn('zookeeper: session expired; opening a new session', {
            event: 'session_expired',
            root: this.options.root,
            session: session.id,
          });
          for (const election of this.elections) election.suspend();
          void session.close(0);
          this.current = this.openSession();
        },
      },
      this.options.auth,
    );
    return session;
  }
}

/** A call refused for lack of permission (the session's identities are not in the node's ACL). */
function isNoAuth(error: unknown): boolean {
  return (error as HeraldError | undefined)?.details?.zookeeperCode === Exception.NO_AUTH;
}
