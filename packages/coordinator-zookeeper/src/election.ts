import { randomUUID } from 'node:crypto';
import { ErrorCodes, HeraldError, isHeraldError } from '@herald/core';
import type { Election, Logger } from '@herald/core/ports';
import { CreateMode } from 'node-zookeeper-client';
import { candidatePrefix, inLineOrder, type Layout } from './layout';
import type { ZkSession } from './session';

/** What an election needs from its coordinator. */
export interface ElectionHost {
  /** The current session; replaced when a session expires. */
  readonly session: ZkSession;
  /** Increases with every new session. */
  readonly generation: number;
  readonly layout: Layout;
  readonly logger: Logger;
  assertOpen(op: string): void;
  /** The election has resigned and its node is gone: the coordinator can forget it. */
  release(election: ZooKeeperElection): void;
}

const RETRY_MS = 1000;
const LEADER_READ_ATTEMPTS = 10;

/**
 * One candidate of a role: ZooKeeper's leader-election recipe. The candidate
 * owns one ephemeral sequential node under `election/<role>`; the lowest
 * sequence leads; every other candidate watches only the node just before its
 * own (no herd effect when the leader goes).
 *
 * `sync()` brings ZooKeeper and this object in line: it creates the node when
 * this session has none (first campaign, or after the session expired: the
 * candidate rejoins at the back of the line), deletes it after a resign, and
 * re-evaluates who leads. Runs never overlap; an event during a run causes
 * one more run. While the session is disconnected the candidate does not
 * count itself leader: another may take over if the session expires.
 */
export class ZooKeeperElection implements Election {
  private leading = false;
  private resigned = false;
  private shutDown = false;
  /** This candidate's node name and the session generation it was created in. */
  private node: { name: string; generation: number } | undefined;
  private readonly tag = randomUUID();
  private readonly listeners = new Set<(leader: boolean) => void>();
  private running: Promise<void> | undefined;
  private again = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly watchPredecessor = (): void => this.schedule();

  constructor(
    private readonly host: ElectionHost,
    readonly role: string,
    readonly candidateId: string,
  ) {}

  isLeader(): boolean {
    return this.leading;
  }

  async leader(): Promise<string | undefined> {
    this.host.assertOpen('election.leader');
    const path = this.host.layout.role(this.role);
    for (let attempt = 0; attempt < LEADER_READ_ATTEMPTS; attempt++) {
      const session = this.host.session;
      const first = inLineOrder((await session.getChildren(path)) ?? [])[0];
      if (first === undefined) return undefined;
      const read = await session.getData(`${path}/${first}`);
      if (read !== undefined) return read.data?.toString('utf8') ?? '';
      // The first node went between the two reads: read the line again.
    }
    throw new HeraldError(
      ErrorCodes.UNAVAILABLE,
      `zookeeper election ${this.role}: the line kept changing while reading the leader`,
      { retriable: true },
    );
  }

  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Leaves the line. If ZooKeeper cannot be reached now this rejects with
   * UNAVAILABLE, and the node is deleted on reconnection (or goes with the
   * session); the candidate never leads again either way.
   */
  async resign(): Promise<void> {
    if (this.resigned || this.shutDown) return;
    this.resigned = true;
    this.setLeader(false);
    await this.sync();
  }

  /** Campaigns: joins the line and learns whether it leads. */
  async join(): Promise<void> {
    await this.sync();
  }

  /** The session is disconnected (it may come back) or expired (it will not): stop leading for now. */
  suspend(): void {
    this.setLeader(false);
  }

  /** The coordinator is closing: stop leading, stop every timer; the session's end removes the node. */
  shutdown(): void {
    this.shutDown = true;
    clearTimeout(this.retryTimer);
    this.setLeader(false);
  }

  /** Runs `sync` in the background (watch fired, reconnected); errors are logged and retried. */
  schedule(): void {
    if (this.shutDown) return;
    this.sync().catch((error: unknown) => this.onSyncError(error));
  }

  private sync(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          await this.step();
        } while (this.again && !this.shutDown);
      } finally {
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  private onSyncError(error: unknown): void {
    if (this.shutDown) return;
    // While disconnected there is nothing to do: the reconnection schedules another run.
    if (isHeraldError(error) && error.code === ErrorCodes.UNAVAILABLE && !this.host.session.connected) return;
    this.host.logger.warn('zookeeper election: could not update the candidate; retrying', {
      role: this.role,
      candidateId: this.candidateId,
      error: error instanceof Error ? error.message : String(error),
    });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.schedule(), RETRY_MS);
  }

  private async step(): Promise<void> {
    if (this.shutDown) return;
    const { session, generation, layout } = this.host;
    const path = layout.role(this.role);
    if (this.resigned) return this.leave(session, path);

    let children = await session.getChildren(path);
    if (children === undefined) {
      await session.ensurePath(path);
      children = [];
    }
    let node = this.node;
    if (node?.generation !== generation) {
      node = { name: await this.createNode(session, path, children), generation };
      this.node = node;
      children = (await session.getChildren(path)) ?? [];
    }
    const line = inLineOrder(children);
    const index = line.indexOf(node.name);
    if (index < 0) {
      // Our node is gone while the session lives (deleted by hand?): join again.
      this.host.logger.warn('zookeeper election: candidate node vanished; joining again', {
        role: this.role,
        candidateId: this.candidateId,
      });
      this.node = undefined;
      this.setLeader(false);
      this.again = true;
      return;
    }
    if (index === 0) {
      // Only a live, current session may lead.
      if (generation === this.host.generation && session.connected) this.setLeader(true);
      return;
    }
    this.setLeader(false);
    const predecessor = `${path}/${line[index - 1]}`;
    if (!(await session.exists(predecessor, this.watchPredecessor))) this.again = true;
  }

  /**
   * Creates this candidate's node, or adopts the one a lost reply left behind
   * (found by its tag: ephemeral nodes of an expired session are already gone,
   * so a tagged node is this session's).
   */
  private async createNode(session: ZkSession, path: string, children: readonly string[]): Promise<string> {
    const prefix = candidatePrefix(this.tag);
    const mine = inLineOrder(children.filter((c) => c.startsWith(prefix)));
    for (const extra of mine.slice(1)) await session.remove(`${path}/${extra}`, -1);
    if (mine[0] !== undefined) return mine[0];
    for (;;) {
      const created = await session.create(
        `${path}/${prefix}`,
        Buffer.from(this.candidateId, 'utf8'),
        CreateMode.EPHEMERAL_SEQUENTIAL,
      );
      if (created === 'no-parent') {
        await session.ensurePath(path);
        continue;
      }
      if (created === 'exists')
        throw new HeraldError(ErrorCodes.INTERNAL, `zookeeper election ${this.role}: a sequential node already exists`);
      return created.slice(created.lastIndexOf('/') + 1);
    }
  }

  /** After a resign: delete this candidate's node(s) in the current session. */
  private async leave(session: ZkSession, path: string): Promise<void> {
    const prefix = candidatePrefix(this.tag);
    const mine = ((await session.getChildren(path)) ?? []).filter((c) => c.startsWith(prefix));
    for (const name of mine) await session.remove(`${path}/${name}`, -1);
    this.node = undefined;
    this.host.release(this);
  }

  private setLeader(leader: boolean): void {
    if (this.leading === leader) return;
    this.leading = leader;
    this.host.logger.info(leader ? 'zookeeper election: leading' : 'zookeeper election: not leading', {
      role: this.role,
      candidateId: this.candidateId,
    });
    for (const listener of [...this.listeners]) {
      try {
        listener(leader);
      } catch (error) {
        this.host.logger.error('zookeeper election: a listener threw', {
          role: this.role,
          candidateId: this.candidateId,
          error: String(error),
        });
      }
    }
  }
}
