import type { FunnelStage, FunnelStageName } from '../api/funnel-types';
import { reasonText } from './reasons';

/** One funnel row as the task page shows it. */
export interface FunnelRow {
  /** Unique within a funnel: the stage, and its link or why. */
  key: string;
  label: string;
  /** 0 audience; 1 what the filters removed and kept; 2 the kept ones' fates; 3 their parts. */
  depth: number;
  count: number | null;
  /** Its share of the audience, 0..1; null when unknown. */
  share: number | null;
  /** Why the count is unknown (or why the unknown ones are). */
  note: string | null;
  tone: 'neutral' | 'removed' | 'online' | 'offline' | 'muted';
}

const LABELS: Record<FunnelStageName, string> = {
  audience: 'Audience (as uploaded)',
  removed: 'Removed',
  kept: 'Kept after filters',
  delivered_online: 'Pushed online',
  rejected: 'Rejected by the channel',
  queued_offline: 'Queued offline',
  not_reached: 'Not reached yet',
  unknown: 'Unknown',
  delivered_at_login: 'delivered at login',
  waiting: 'waiting for a login',
  expired: 'expired before a login',
  dropped_at_login: 'dropped at login',
};

const DEPTH: Record<FunnelStageName, number> = {
  audience: 0,
  removed: 1,
  kept: 1,
  delivered_online: 2,
  queued_offline: 2,
  not_reached: 2,
  unknown: 2,
  rejected: 2,
  delivered_at_login: 3,
  waiting: 3,
  expired: 3,
  dropped_at_login: 3,
};

function toneOf(stage: FunnelStageName): FunnelRow['tone'] {
  if (stage === 'removed' || stage === 'rejected' || stage === 'expired' || stage === 'dropped_at_login')
    return 'removed';
  if (stage === 'delivered_online' || stage === 'delivered_at_login') return 'online';
  if (stage === 'queued_offline' || stage === 'waiting') return 'offline';
  if (stage === 'not_reached' || stage === 'unknown') return 'muted';
  return 'neutral';
}

function labelOf(stage: FunnelStage): string {
  if (stage.stage === 'removed' && stage.link !== undefined) return `Removed: ${reasonText(stage.link)}`;
  if (stage.stage === 'dropped_at_login' && stage.why !== undefined)
    return `dropped at login: ${stage.why === 'expired' ? 'expired' : reasonText(stage.why)}`;
  return LABELS[stage.stage];
}

/** The API's stages as rows, in its order, each with its share of the audience. */
export function funnelRows(stages: readonly FunnelStage[]): FunnelRow[] {
  const audience = stages.find((s) => s.stage === 'audience')?.count;
  const total = typeof audience === 'number' && audience > 0 ? audience : null;
  return stages.map((stage) => {
    const count = stage.count === 'unknown' ? null : stage.count;
    return {
      key: [stage.stage, stage.link ?? stage.why].filter((part) => part !== undefined).join(':'),
      label: labelOf(stage),
      depth: DEPTH[stage.stage],
      count,
      share: count === null || total === null ? null : count / total,
      note: stage.reason ?? null,
      tone: toneOf(stage.stage),
    };
  });
}
