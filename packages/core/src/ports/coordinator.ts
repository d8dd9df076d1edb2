/**
 * Coordination: leader election and execution-unit progress checkpoints.
 * Production: ZooKeeper (node-zookeeper-client); embedded: in process.
 *
 * Progress is written here first, on every confirmed batch; the elected
 * controller moves confirmed checkpoints into the task store (seed 002, Q17),
 * so the task store takes one write per unit per sync instead of one per batch.
 *
 * Contract, checked by the Coordinator conformance suite for every adapter:
 * - `putCheckpoint` is monotonic per unit: a checkpoint whose `checkpoint`
 *   offset is not above the stored one (for the same or a lower epoch) is
 *   ignored; a higher epoch always replaces (a new owner may restart lower).
 * - `listCheckpoints` returns every stored checkpoint (optionally of one task);
 *   `removeCheckpoint` removes one only if it is still the given version, so a
 *   checkpoint written after the controller read it is never lost.
 * - `elect` campaigns for a role; exactly one live candidate of a role is
 *   leader at a time; when the leader closes, resigns or its session expires,
 *   another candidate becomes leader. Listeners hear every change.
 * - A lost session is re-established by the adapter itself; the process keeps
 *   running (it never exits because its coordinator reconnected). While
 *   disconnected, calls fail with a retriable HeraldError (code UNAVAILABLE).
 */
export interface UnitCheckpoint {
  taskId: number;
  unitNo: number;
  /** Owner epoch of the scheduler that confirmed this progress. */
  epoch: number;
  /** Recipients [start, checkpoint) of the unit are confirmed. */
  checkpoint: number;
  /** Totals for the unit up to the checkpoint. */
  delivered: number;
  offline: number;
  /** Epoch ms when written. */
  at: number;
}

export interface StoredCheckpoint extends UnitCheckpoint {
  /** Adapter version of the stored record (ZooKeeper's znode version); for removeCheckpoint. */
  version: number;
}

export interface Election {
  readonly role: string;
  readonly candidateId: string;
  isLeader(): boolean;
  /** The current leader's candidate id, if any. */
  leader(): Promise<string | undefined>;
  /** Called with true when this candidate becomes leader, false when it stops being leader. */
  onChange(listener: (leader: boolean) => void): () => void;
  resign(): Promise<void>;
}

export interface Coordinator {
  elect(role: string, candidateId: string): Promise<Election>;
  putCheckpoint(checkpoint: UnitCheckpoint): Promise<void>;
  getCheckpoint(taskId: number, unitNo: number): Promise<StoredCheckpoint | undefined>;
  listCheckpoints(taskId?: number): Promise<StoredCheckpoint[]>;
  /** Removes the checkpoint if its version is still `version`; returns whether it did. */
  removeCheckpoint(taskId: number, unitNo: number, version: number): Promise<boolean>;
  close(): Promise<void>;
}
