/**
 * Whether the reports read for a task can be all of them. The reports topic
 * is not compacted: time or size retention deletes its oldest records. A
 * remainder computed after some of a task's reports were deleted would count
 * their ranges as never reached and send them again, so recovery refuses
 * instead (ReportsIncompleteError).
 *
 * A task's reports all sit on one partition (keyed by task id). If that
 * partition lost nothing (its log starts at offset 0 and the first record
 * read was there), the reports are complete. If it lost records, they are
 * known to be older than the task only when the task's creation time is
 * known and the oldest record still there was written before it, with room
 * for clock skew between the executors and the task store.
 */
import { ReportsMismatchError } from './remainder';

/** Room for clock skew between the hosts that stamp reports and the one that stamps task creation. */
export const REPORT_CLOCK_SKEW_MS = 60_000;

export interface ReportsCoverage {
  taskId: number;
  /** The partition that holds the task's reports. */
  partition: number;
  /** The partition's log start offset when reading began: above 0, older records were deleted. */
  logStart: bigint;
  /** The first record read from the partition; undefined when it held none. */
  first?: { offset: bigint; timestamp: number };
  /** When the task was created (epoch ms), when the origin's task store says. */
  createdAt?: number;
}

/**
 * Reports of which some may have been deleted before they were read
 * (retention). Code VALIDATION_FAILED, `details.reason` 'reports_deleted';
 * a ReportsMismatchError, as every refusal to compute a remainder.
 */
export class ReportsIncompleteError extends ReportsMismatchError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, { ...details, reason: 'reports_deleted' });
  }
}

/** Throws ReportsIncompleteError unless the reports read from the task's partition can be all of them. */
export function checkReportsComplete(coverage: ReportsCoverage): void {
  const { taskId, partition, logStart, first, createdAt } = coverage;
  const firstOffset = first?.offset ?? logStart;
  if (logStart === 0n && firstOffset === 0n) return;
  if (createdAt !== undefined && first !== undefined && first.timestamp + REPORT_CLOCK_SKEW_MS <= createdAt) return;
  throw new ReportsIncompleteError(
    `task ${taskId}: partition ${partition} of the reports topic no longer starts at offset 0 (it starts at ${firstOffset}): ` +
      'reports may have been deleted by retention, and a remainder without them would send reached recipients again',
    {
      taskId,
      partition,
      logStart: String(logStart),
      firstOffset: String(firstOffset),
      ...(first === undefined ? {} : { firstTimestamp: first.timestamp }),
      ...(createdAt === undefined ? {} : { createdAt }),
    },
  );
}
