/**
 * @module @herald/core/pacing
 *
 * Pacing a sender to a task's speed (recipients per second): a pure token bucket, time
 * passed in; and pacing a delivery channel by its answers (AIMD, Retry-After, a circuit
 * breaker: `ChannelPacing`, docs/delivery.md).
 *
 * @example
 *   import { TokenBucket } from '@herald/core/pacing';
 *   const bucket = new TokenBucket({ ratePerSecond: 500, burst: 500 }, now);
 *   const granted = bucket.take(batch.length, now);
 */
export { TokenBucket } from './token-bucket';
export type { TokenBucketOptions } from './token-bucket';
export { ChannelPacing } from './channel-pacing';
export {
  checkChannelLimits,
  demandFraction,
  fractionOfChannel,
  liveSenderIds,
  liveSenders,
  partToApply,
  shareOfChannel,
} from './channel-share';
export type { LastDemandReport, SeenMember } from './channel-share';
export type {
  Admission,
  BreakerState,
  ChannelLimits,
  ChannelPacingOptions,
  ChannelStatus,
  SendersRate,
  WaitReason,
} from './channel-pacing';
