import type { HeraldConfig, Logger } from '@herald/core';
import type { PromMeter } from '@herald/metrics';

export const TIERS = ['interface', 'scheduler', 'dispatcher', 'executor', 'presence', 'controller'] as const;
export type TierName = (typeof TIERS)[number];

export interface TierContext {
  config: HeraldConfig;
  /** This process's id: its key pair, its topology entry, its election candidate id. */
  id: string;
  logger: Logger;
  meter: PromMeter;
}

/** A running tier process; `stop` closes its sockets and connections. */
export interface RunningTier {
  readonly description: string;
  stop(): Promise<void>;
}
