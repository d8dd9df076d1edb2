/**
 * @module @herald/core/ports
 *
 * The ports every adapter implements, each a documented interface that owns its connection
 * (`TaskStore`, `Coordinator`, `EventBus`, `OfflineStore`, `DeliveryGateway`, the
 * audience sources, the account, campaign, access and frequency stores), the rules their
 * adapters share, and the observability ports (`Logger`, `Meter`, `Clock`) with their
 * no-op and system defaults.
 *
 * @example
 *   import { noopLogger, systemClock, type TaskStore } from '@herald/core/ports';
 */
export type { CampaignStore } from './campaign-store';
export {
  BAD_ROW_REASONS,
  DEFAULT_SOURCE_BATCH,
  MAX_SOURCE_BATCH,
  addBadRows,
  badRowTotal,
  classifyUin,
  checkSourceBatchSize,
  checkAscendingBatch,
} from './audience-source';
export type { AudienceSource, AudienceReadOptions, AudienceBatch, BadRowReason, BadRowCounts } from './audience-source';
export type { FollowerStore, FollowApplyResult, FollowersOptions } from './follower-store';
export { MAX_USERS_PER_PUT } from './attribute-index';
export type { AttributeIndex, StoredChunk } from './attribute-index';
export { MAX_USERS_PER_LOOKUP, checkLookupSize, isLookupUin } from './user-attribute-lookup';
export type { UserAttributeLookup } from './user-attribute-lookup';
export type { AccountStore } from './account-store';
export type { TaskStore, TaskQuery, TaskPage, TaskPatch, UnitProgress, OutboxEvent } from './task-store';
export type { AccessStore } from './access-store';
export type { Coordinator, Election, UnitCheckpoint, StoredCheckpoint } from './coordinator';
export { checkUnitKey, checkCheckpoint, checkRole, checkCandidateId, supersedes, byUnit } from './coordinator-rules';
export { TOPICS, TOPIC_CLEANUP, topicCleanup } from './event-bus';
export type {
  EventBus,
  BusEvent,
  ConsumedEvent,
  SubscribeOptions,
  CheckedSubscribeOptions,
  SkippedRange,
  Subscription,
} from './event-bus';
export { checkTopic, checkGroup, checkEvents, checkSubscription } from './event-bus-rules';
export type { CheckedEvent } from './event-bus-rules';
export type { OfflineStore, OfflineEntry, OfflineAppendOptions, OfflinePurge } from './offline-store';
export type { ConfirmedBatch, ConfirmedBatchLog } from './confirmed-batch-log';
export type { DeliveryGateway, Delivery, DeliveryResult, RecipientRejection } from './delivery-gateway';
export type { DeliveryRecordLog, PurgedRecords, LoginBucket, LoginBucketLog } from './delivery-record-log';
export { LOGIN_BUCKET_BITS } from './delivery-record-log';
export type { FrequencyCounter, FrequencyUse } from './frequency-counter';
export { noopLogger, noopMeter, systemClock, LATENCY_BUCKETS_SECONDS } from './observability';
export type { Logger, Meter, Counter, Gauge, Histogram, Clock } from './observability';
export type { DeviceRegistry, Device, DevicePlatform, DeviceRegistration, RegisterResult } from './device-registry';
export {
  DEVICE_PLATFORMS,
  MAX_DEVICES_PER_UIN,
  MAX_DEVICE_TOKEN_LENGTH,
  MAX_DEAD_TOKENS,
  checkDevicePlatform,
  checkDeviceToken,
  checkAnyDeviceToken,
  checkDeviceUin,
  checkDeviceUins,
  checkDeviceRegistration,
  checkDeadTokens,
  normaliseToken,
} from './device-rules';
