import type { StoredCheckpoint, UnitCheckpoint } from '@herald/core/ports';

/**
 * The znodes of one Herald cluster, all under its root:
 *
 *   <root>/checkpoints/<taskId>/<unitNo>     persistent; a UnitCheckpoint as JSON;
 *                                            the znode version is StoredCheckpoint.version
 *   <root>/election/<role>/<tag>-n_<seq>     ephemeral sequential, one per candidate;
 *                                            data: the candidate id (UTF-8); lowest <seq> leads
 *
 * <tag> is a random id per Election object, so a candidate can find its own
 * node when the reply to its create was lost with the connection.
 */
export class Layout {
  readonly checkpoints: string;
  readonly election: string;

  constructor(readonly root: string) {
    this.checkpoints = `${root}/checkpoints`;
    this.election = `${root}/election`;
  }

  task(taskId: number): string {
    return `${this.checkpoints}/${taskId}`;
  }

  unit(taskId: number, unitNo: number): string {
    return `${this.checkpoints}/${taskId}/${unitNo}`;
  }

  role(role: string): string {
    return `${this.election}/${role}`;
  }
}

/** The prefix of a candidate's node; ZooKeeper appends a 10-digit sequence number. */
export const candidatePrefix = (tag: string): string => `${tag}-n_`;

/** The sequence number ZooKeeper appended to a candidate node's name. */
export function sequenceOf(name: string): number {
  const digits = /(\d{10})$/.exec(name);
  return digits === null ? Number.MAX_SAFE_INTEGER : Number(digits[1]);
}

/** Candidate node names in line order: the leader first. */
export function inLineOrder(children: readonly string[]): string[] {
  return [...children].sort((a, b) => sequenceOf(a) - sequenceOf(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** A znode name that is a task id or unit number (decimal, no sign, no leading zeros). */
export function parseCount(name: string): number | undefined {
  if (!/^(0|[1-9]\d{0,15})$/.test(name)) return undefined;
  const value = Number(name);
  return Number.isSafeInteger(value) ? value : undefined;
}

export function encodeCheckpoint(c: UnitCheckpoint): Buffer {
  const { taskId, unitNo, epoch, checkpoint, delivered, offline, at } = c;
  return Buffer.from(JSON.stringify({ taskId, unitNo, epoch, checkpoint, delivered, offline, at }), 'utf8');
}

/** The stored record, or undefined when the znode does not hold a checkpoint (corrupt or foreign data). */
export function decodeCheckpoint(
  taskId: number,
  unitNo: number,
  data: Buffer | undefined,
  version: number,
): StoredCheckpoint | undefined {
  if (data === undefined || data.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const r = parsed as Record<string, unknown>;
  const fields = [r.epoch, r.checkpoint, r.delivered, r.offline, r.at];
  if (!fields.every((f) => typeof f === 'number' && Number.isFinite(f))) return undefined;
  if (r.taskId !== taskId || r.unitNo !== unitNo) return undefined;
  const [epoch, checkpoint, delivered, offline, at] = fields as number[];
  return {
    taskId,
    unitNo,
    epoch: epoch!,
    checkpoint: checkpoint!,
    delivered: delivered!,
    offline: offline!,
    at: at!,
    version,
  };
}
