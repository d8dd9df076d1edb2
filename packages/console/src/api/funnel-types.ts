/** GET /api/v1/tasks/:id/funnel as the console reads it (docs/api.md). */
import type { TaskState } from './types';

export type FunnelStageName =
  | 'audience'
  | 'removed'
  | 'kept'
  | 'delivered_online'
  | 'rejected'
  | 'queued_offline'
  | 'not_reached'
  | 'unknown'
  | 'delivered_at_login'
  | 'waiting'
  | 'expired'
  | 'dropped_at_login';

export interface FunnelStage {
  stage: FunnelStageName;
  of: FunnelStageName | null;
  link?: string;
  why?: 'expired' | 'over_frequency';
  /** `unknown` where the records cannot tell; `reason` says why. */
  count: number | 'unknown';
  reason?: string;
  remaining?: number | 'unknown';
  byReason?: Record<string, number>;
}

export interface TaskFunnel {
  taskId: number;
  state: TaskState;
  at: number;
  stages: FunnelStage[];
  /** An A/B task's counts per variant (docs/rollouts.md, "Reports"); absent without variants or before filtering. */
  variants?: VariantCount[];
}

export interface VariantCount {
  name: string;
  share: number;
  recipients: number;
  /** null where the profile keeps no delivery records. */
  deliveredOnline: number | null;
  queuedOffline: number | null;
}
