import type { ExecutionUnit } from '../task/model';
import type { DeliveryRecord } from './delivery-record';
import { bitAt } from './positions';

/** How a task's kept positions stand against its delivery records (funnel.ts reads these). */
export interface DeliveryCoverage {
  /** Positions a record marks online and not rejected: delivered online. */
  online: number;
  /** Positions a record marks online and rejected by the channel, by its reason. */
  rejected: Record<string, number>;
  /** Positions a record marks queued offline. */
  offline: number;
  /** Positions with no record that their unit's checkpoint passed: confirmed before the records existed. */
  passedWithoutRecord: number;
  /** Positions with no record that no checkpoint passed: not reached yet (or ever). */
  unconfirmed: number;
  /**
   * Only when some hosts did not give their records (production): the
   * positions without a record that one of them may hold (its unit's
   * executor is one of them, or a checkpoint passed the position), which the
   * per-recipient answer calls unknown naming `hosts`; they are counted here,
   * in neither passedWithoutRecord nor unconfirmed.
   */
  heldByUnreachable?: { count: number; hosts: string[] };
}

const BYTE_BITS = Uint8Array.from({ length: 256 }, (_, b) => {
  let n = 0;
  for (let v = b; v !== 0; v >>>= 1) n += v & 1;
  return n;
});

/** Set bits among bits [start, end) of `bits`, a byte at a time where it can. */
export function countBitsBetween(bits: Uint8Array, start: number, end: number): number {
  let n = 0;
  let i = start;
  for (; i < end && (i & 7) !== 0; i++) n += (bits[i >>> 3]! >>> (i & 7)) & 1;
  for (; i + 8 <= end; i += 8) n += BYTE_BITS[bits[i >>> 3]!]!;
  for (; i < end; i++) n += (bits[i >>> 3]! >>> (i & 7)) & 1;
  return n;
}

/**
 * Counts a task's batch records, given in position order (the order
 * `DeliveryRecordLog.batchesFrom` yields them), over its kept positions
 * [0, kept), holding only the running counts and the gaps between records.
 * A position two records cover is counted by the first, as the delivery
 * report's walk answers it from the first record holding it.
 */
export class CoverageCounter {
  private online = 0;
  private offline = 0;
  private readonly rejected: Record<string, number> = {};
  private coveredTo = 0;
  /** [from, to) spans no record covers, in order. */
  private readonly gaps: Array<[number, number]> = [];

  constructor(private readonly kept: number) {}

  add(record: Pick<DeliveryRecord, 'from' | 'count' | 'online' | 'rejected'>): void {
    const start = Math.max(record.from, this.coveredTo);
    const end = Math.min(record.from + record.count, this.kept);
    if (start >= end) return;
    if (start > this.coveredTo) this.gaps.push([this.coveredTo, start]);
    const online = countBitsBetween(record.online, start - record.from, end - record.from);
    const rejected = record.rejected === undefined ? 0 : this.addRejected(record, start, end);
    this.online += online - rejected;
    this.offline += end - start - online;
    this.coveredTo = end;
  }

  /** Counts the record's rejected positions in [start, end) by reason (as keptPositionFate: online ones only); returns how many. */
  private addRejected(
    record: Pick<DeliveryRecord, 'from' | 'online' | 'rejected'>,
    start: number,
    end: number,
  ): number {
    const { offsets, reasons, reasonOf } = record.rejected!;
    let n = 0;
    for (let i = 0; i < offsets.length; i++) {
      const position = record.from + offsets[i]!;
      if (position < start || position >= end || !bitAt(record.online, offsets[i]!)) continue;
      const reason = reasons[reasonOf[i]!]!;
      this.rejected[reason] = (this.rejected[reason] ?? 0) + 1;
      n++;
    }
    return n;
  }

  /**
   * The counts, the uncovered positions split by whether a unit's checkpoint
   * passed them. `unreachable`: hosts whose records the walk could not read;
   * an uncovered position they may hold is split off as deliveryAcrossHosts
   * decides a lookup of it (its unit's executor among them, or a checkpoint
   * passed it: unknown; else not reached).
   */
  finish(
    units: readonly (Pick<ExecutionUnit, 'start' | 'end' | 'checkpoint'> & { executorId?: string })[],
    unreachable: ReadonlySet<string> = new Set(),
  ): DeliveryCoverage {
    const gaps =
      this.coveredTo < this.kept ? [...this.gaps, [this.coveredTo, this.kept] as [number, number]] : this.gaps;
    let passed = 0;
    let held = 0;
    let uncovered = 0;
    for (const [from, to] of gaps) {
      uncovered += to - from;
      for (const unit of units) {
        const start = Math.max(from, unit.start);
        const end = Math.min(to, unit.end);
        if (end <= start) continue;
        if (unit.executorId !== undefined && unreachable.has(unit.executorId)) held += end - start;
        else passed += Math.max(0, Math.min(end, unit.checkpoint) - start);
      }
    }
    const coverage: DeliveryCoverage = {
      online: this.online,
      rejected: { ...this.rejected },
      offline: this.offline,
      passedWithoutRecord: unreachable.size > 0 ? 0 : passed,
      unconfirmed: uncovered - passed - held,
    };
    // With a host down, a passed position may be on it (an earlier executor of the unit): unknown, not "without a record".
    if (unreachable.size > 0) coverage.heldByUnreachable = { count: held + passed, hosts: [...unreachable].sort() };
    return coverage;
  }
}
