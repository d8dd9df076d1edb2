/**
 * Safe rollouts (docs/rollouts.md): a task may start as a canary (a random
 * sample first, a hold, then the rest only while the channel stays healthy)
 * and may split its audience into content variants with an untouched
 * holdout. Both choose recipients by a point in [0, 1) hashed from the uin
 * and the task's rollout seed (assign.ts), so a retry, a recovery or a
 * failover picks the very same recipients.
 */

/** How large the canary sample is: a percent of the kept audience ("1%", "0.5%"), or about this many recipients. */
export type CanarySample = string | number;

/** The ratios over the sample above which the canary stops (pauses) the task instead of continuing. */
export interface CanaryThresholds {
  /** Recipients the channel rejected for good (dead letters) over recipients sent, in [0, 1]. */
  rejectedRatio: number;
  /** Recipients in batches the channel failed (after retries) over recipients sent, in [0, 1]. */
  failedRatio: number;
  /**
   * The lowest click-through (reported clicks over the sample's recipients
   * delivered online, rollout/engagement.ts) at which the rest still goes, in [0, 1]; judged
   * after the hold only if engagement was reported. Absent: not judged.
   */
  minClickThrough?: number;
}

export interface CanarySpec {
  sample: CanarySample;
  /** How long the task holds after its sample is sent before judging it, in seconds (0..86400). */
  holdSeconds: number;
  thresholds: CanaryThresholds;
}

/** A variant's content: a task content's shape (task/model.ts TaskContent), repeated here so the task model can import this module. */
export interface VariantContent {
  body: string;
  title?: string;
  template?: true;
}

export interface RolloutVariant {
  /** 1..32 characters of [a-z0-9_-], distinct within the task: what reports and answers call it. */
  name: string;
  /** Share of the audience in (0, 1); all shares plus the holdout add up to 1. */
  share: number;
  content: VariantContent;
}

/** A task's rollout settings as stored on it (NewTask.rollout). */
export interface TaskRollout {
  /** Seeds the hash that places each uin (assign.ts): drawn once at creation, kept for the task's life. */
  seed: number;
  canary?: CanarySpec;
  /** 2..8 content variants over disjoint shares of the audience. */
  variants?: RolloutVariant[];
  /** Share of the audience that gets nothing (fate "held out"), in [0, 1). Only with variants. */
  holdout?: number;
}

export const MAX_VARIANTS = 8;
export const MIN_VARIANTS = 2;
export const MAX_HOLD_SECONDS = 86_400;
/** The largest canary sample as a share: past half, the canary is the broadcast. */
export const MAX_CANARY_PERCENT = 50;
/** How far the variant shares plus the holdout may be from 1 (floating-point sums). */
export const SHARE_TOLERANCE = 1e-9;
export const VARIANT_NAME = /^[a-z0-9_-]{1,32}$/;
