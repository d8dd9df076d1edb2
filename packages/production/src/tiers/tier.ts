import type { HeraldConfig } from '@herald/core/config';
import type { DeliveryRecordLog, Logger } from '@herald/core/ports';
import type { PromMeter } from '@herald/metrics';
import type { ChannelLimitsControl } from '@herald/executor';
import type { Readiness } from '../readiness';

export const TIERS = ['interface', 'scheduler', 'dispatcher', 'executor', 'presence', 'controller'] as const;
export type TierName = (typeof TIERS)[number];

export interface TierContext {
  config: HeraldConfig;
  /** This process's id: its key pair, its topology entry, its election candidate id. */
  id: string;
  logger: Logger;
  meter: PromMeter;
  /** Where the tier's adapters register what they warm before the process is ready (startTier makes one when absent). */
  readiness?: Readiness;
}

/** A running tier process; `stop` closes its sockets and connections. */
export interface RunningTier {
  readonly description: string;
  /** The tier's own view for the management endpoint (GET /status): plain JSON data. */
  status(): Record<string, unknown>;
  /**
   * Stops taking work, hands off or finishes what it has, leaves the cluster
   * and stops (docs/operations.md): resolves when the process may exit. Waits
   * at most `management.drainTimeoutMs` for the hand-off, then stops anyway
   * (whatever is left resumes from its checkpoints).
   */
  drain(): Promise<void>;
  stop(): Promise<void>;
  /** An executor's paced channels, for its management endpoint (GET /channels, POST /channels/limits). */
  readonly channels?: ChannelLimitsControl;
  /** An executor's delivery records, for its management endpoint (GET /records/...). */
  readonly deliveryRecords?: DeliveryRecordLog;
}
