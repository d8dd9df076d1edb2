/**
 * @module @herald/core/fate
 *
 * Per-recipient truth (docs/recipient-truth.md): the bitset of a confirmed
 * batch's online positions and its stored form, the file of what each filter
 * link removed, and the fate a recipient's facts support.
 *
 * @example
 *   import { classifyFate, onlineBitsOf } from '@herald/core/fate';
 */
export { onlineBitsOf, bitAt, countBits, removedBetween } from './positions';
export { encodeDeliveryRecord, decodeDeliveryRecord, rejectionsOf, rejectionAt } from './delivery-record';
export type { DeliveryRecord, BatchRejections } from './delivery-record';
export {
  REMOVED_MAGIC,
  REMOVED_VERSION,
  RemovedFlags,
  encodeRemovedSets,
  encodeRemovedHeader,
  decodeRemovedHeader,
  removedHeaderBytes,
  removedSectionCount,
} from './removed-sets';
export type { RemovedHeader, RemovedSection } from './removed-sets';
export { classifyFate, keptPositionFate } from './fate';
export { buildFunnel, CHAIN_ORDER } from './funnel';
export type { FunnelFacts, FunnelStage, FunnelStageName, FunnelCount, LoginCounts } from './funnel';
export { CoverageCounter, countBitsBetween } from './coverage';
export {
  HostsUnreachable,
  isHostsUnreachable,
  PurgeIncomplete,
  purgedBeforeUnreachable,
  unreachableReason,
  deliveryAcrossHosts,
  loginAcrossHosts,
  unreachableOf,
} from './hosts';
export type { HostAwareWalk } from './hosts';
export type { DeliveryCoverage } from './coverage';
export type {
  Fate,
  FateFacts,
  KeptPositionFacts,
  RecipientFate,
  RemovalFacts,
  DeliveryFacts,
  LoginFacts,
  LoginOutcome,
  LoginOutcomeKind,
  OfflineThen,
} from './fate';
