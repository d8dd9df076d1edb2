import {
  byUnit,
  checkCandidateId,
  checkCheckpoint,
  checkRole,
  checkUnitKey,
  noopLogger,
  supersedes,
  type Coordinator,
  type Election,
  type Logger,
  type StoredCheckpoint,
  type UnitCheckpoint,
} from '@herald/core/ports';
import { ErrorCodes, HeraldError } from '@herald/core';

/**
 * What every participant of one local cluster shares: the checkpoints (with
 * ZooKeeper-like versions: 0 when created, +1 on every write) and, per role,
 * the line of candidates in the order they joined (the first one leads).
 */
class SharedState {
  readonly checkpoints = new Map<string, StoredCheckpoint>();
  readonly lines = new Map<string, LocalElection[]>();

  constructor(readonly logger: Logger) {}

  join(election: LocalElection): void {
    const line = this.lines.get(election.role) ?? [];
    this.lines.set(election.role, line);
    line.push(election);
    if (line.length === 1) election.setLeader(true);
  }

  leave(election: LocalElection): void {
    const line = this.lines.get(election.role);
    const index = line?.indexOf(election) ?? -1;
    if (line === undefined || index < 0) return;
    line.splice(index, 1);
    if (index !== 0) return;
    election.setLeader(false);
    line[0]?.setLeader(true);
  }

  leaderOf(role: string): string | undefined {
    return this.lines.get(role)?.[0]?.candidateId;
  }
}

const key = (taskId: number, unitNo: number): string => `${taskId}/${unitNo}`;
const copy = (c: StoredCheckpoint): StoredCheckpoint => ({ ...c });

class LocalElection implements Election {
  private leading = false;
  private resigned = false;
  private readonly listeners = new Set<(leader: boolean) => void>();

  constructor(
    private readonly owner: LocalCoordinator,
    private readonly shared: SharedState,
    readonly role: string,
    readonly candidateId: string,
  ) {}

  isLeader(): boolean {
    return this.leading;
  }

  async leader(): Promise<string | undefined> {
    this.owner.assertOpen('election.leader');
    return this.shared.leaderOf(this.role);
  }

  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async resign(): Promise<void> {
    this.withdraw();
  }

  /** Leaves the line for good (resign, or the coordinator closed). */
  withdraw(): void {
    if (this.resigned) return;
    this.resigned = true;
    this.shared.leave(this);
  }

  setLeader(leader: boolean): void {
    if (this.leading === leader) return;
    this.leading = leader;
    for (const listener of [...this.listeners]) {
      try {
        listener(leader);
      } catch (error) {
        this.shared.logger.error('coordinator: an election listener threw', {
          role: this.role,
          candidateId: this.candidateId,
          error: String(error),
        });
      }
    }
  }
}

/** One participant of a local cluster: what one process would hold. */
class LocalCoordinator implements Coordinator {
  private closed = false;
  private readonly elections = new Set<LocalElection>();

  constructor(private readonly shared: SharedState) {}

  assertOpen(op: string): void {
    if (this.closed)
      throw new HeraldError(ErrorCodes.STORE_CLOSED, `LocalCoordinator.${op}: the coordinator is closed`);
  }

  async elect(role: string, candidateId: string): Promise<Election> {
    this.assertOpen('elect');
    checkRole(role);
    checkCandidateId(candidateId);
    const election = new LocalElection(this, this.shared, role, candidateId);
    this.elections.add(election);
    this.shared.join(election);
    return election;
  }

  async putCheckpoint(checkpoint: UnitCheckpoint): Promise<void> {
    this.assertOpen('putCheckpoint');
    checkCheckpoint(checkpoint);
    const k = key(checkpoint.taskId, checkpoint.unitNo);
    const stored = this.shared.checkpoints.get(k);
    if (stored !== undefined && !supersedes(checkpoint, stored)) return;
    const { taskId, unitNo, epoch, checkpoint: offset, delivered, offline, at } = checkpoint;
    const version = stored === undefined ? 0 : stored.version + 1;
    this.shared.checkpoints.set(k, { taskId, unitNo, epoch, checkpoint: offset, delivered, offline, at, version });
  }

  async getCheckpoint(taskId: number, unitNo: number): Promise<StoredCheckpoint | undefined> {
    this.assertOpen('getCheckpoint');
    checkUnitKey(taskId, unitNo);
    const stored = this.shared.checkpoints.get(key(taskId, unitNo));
    return stored === undefined ? undefined : copy(stored);
  }

  async listCheckpoints(taskId?: number): Promise<StoredCheckpoint[]> {
    this.assertOpen('listCheckpoints');
    if (taskId !== undefined) checkUnitKey(taskId);
    const all = [...this.shared.checkpoints.values()];
    return (taskId === undefined ? all : all.filter((c) => c.taskId === taskId)).map(copy).sort(byUnit);
  }

  async removeCheckpoint(taskId: number, unitNo: number, version: number): Promise<boolean> {
    this.assertOpen('removeCheckpoint');
    checkUnitKey(taskId, unitNo);
    const k = key(taskId, unitNo);
    if (this.shared.checkpoints.get(k)?.version !== version) return false;
    this.shared.checkpoints.delete(k);
    return true;
  }

  /** Leaves every election (another candidate takes over at once); later calls fail with STORE_CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const election of this.elections) election.withdraw();
    this.elections.clear();
  }
}

/** An in-process coordination "cluster": participants that share checkpoints and elections. */
export interface LocalCoordinatorCluster {
  /** A new participant, as another process would be. */
  connect(): Promise<Coordinator>;
}

export interface LocalCoordinatorClusterOptions {
  /** Hears listener failures. @defaultValue noopLogger */
  logger?: Logger;
}

/**
 * Creates an in-process cluster for the embedded profile and for tests. Its
 * participants pass the same conformance suite as ZooKeeper's: checkpoints
 * are monotonic and versioned, each role's first live candidate leads, and a
 * resigning or closing leader hands over to the next in line at once. Nothing
 * survives the process, which is what "embedded" means.
 */
export function createLocalCoordinatorCluster({
  logger = noopLogger,
}: LocalCoordinatorClusterOptions = {}): LocalCoordinatorCluster {
  const shared = new SharedState(logger);
  return { connect: async () => new LocalCoordinator(shared) };
}
