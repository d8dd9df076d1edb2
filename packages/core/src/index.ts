/**
 * @module @herald/core
 *
 * Herald's pure core: the task model and its two state machines, the schedule
 * score and priority queue, the consistent-hash ring, the recipient-list file
 * codec, sorted-uin set algebra, the online bitmap, configuration, errors, and
 * the ports every adapter implements. No I/O, no timers: every other package
 * depends on this one and it depends on nothing.
 *
 * @example
 *   import { taskMachine, compileConfig, HashRing } from '@herald/core';
 *   const config = compileConfig({ uinSpaceBits: 24 });
 *   taskMachine.next('CREATED', 'enqueue'); // 'QUEUED'
 *   new HashRing(['scheduler-1', 'scheduler-2']).ownerOf(42);
 */
export {
  ErrorCodes,
  HeraldError,
  ConfigError,
  ValidationError,
  NotFoundError,
  AccessDeniedError,
  RateLimitedError,
  ListFormatError,
  IllegalTransitionError,
  FencedError,
  FrameError,
  QueryError,
  TemplateError,
  AudienceSourceError,
  AccountQuotaError,
  isHeraldError,
} from './errors';
export type { ErrorCode, HeraldErrorOptions } from './errors';
// Dates from outside (the API's sendAt and the like): strict RFC 3339, calendar-valid, bounded.
export { parseDateTime, parseOptionalDateTime, isLeapYear, daysInMonth, MIN_DATE_TIME_MS, MAX_DATE_TIME_MS, MAX_DATE_TIME_CHARS } from './time/date-time';
export { parseSendAt, SEND_AT_SKEW_MS } from './time/send-time';

export { defineMachine } from './task/machine';
export type { StateMachine, TransitionTable } from './task/machine';
export { taskMachine, TASK_STATES, TASK_EVENTS, TERMINAL_TASK_STATES } from './task/task-machine';
export type { TaskState, TaskEvent } from './task/task-machine';
export { unitMachine, UNIT_STATES, UNIT_EVENTS } from './task/unit-machine';
export type { UnitState, UnitEvent } from './task/unit-machine';
export { FILTER_REASONS, emptyReport, removedTotal } from './task/model';
export type { PriorityClass, FilterReason, TaskContent, NewTask, Task, TaskReport, NewUnit, ExecutionUnit, ListMeta } from './task/model';
export { checkFence } from './task/fence';
export { EpochFloor } from './task/epoch-floor';
// Pacing a sender to a task's speed (recipients per second): a pure token bucket, time passed in.
export { TokenBucket } from './pacing/token-bucket';
export type { TokenBucketOptions } from './pacing/token-bucket';
export type { Fence } from './task/fence';
export { contentCrc, taskContentOf } from './task/content';
// Personalised content: templates parsed once per task, rendered per recipient (docs/delivery.md).
export { parseTemplate, renderTemplate, TEMPLATE_VARIABLES } from './template/template';
export type { CompiledTemplate, TemplateVariable } from './template/template';
export { compileContent, renderContents } from './template/content';
export type { CompiledContent } from './template/content';
export {
  DEFAULT_TASK_RECORD_RULES,
  MAX_IDEMPOTENCY_KEY_CHARS,
  TASK_QUERY_DEFAULT_LIMIT,
  TASK_QUERY_MAX_LIMIT,
  TASK_QUERY_MAX_ACCOUNTS,
  checkIdString,
  isTaskId,
  checkNow,
  checkNewTask,
  newTaskRecord,
  checkLimit,
  checkOutboxRead,
  compileTaskQuery,
  checkContentQuery,
  checkedFence,
  checkUnitNo,
  applyTaskPatch,
  checkNewUnits,
  newUnitRecord,
  transitionedUnit,
  checkProgress,
  checkProgressInUnit,
  applyUnitProgress,
  checkListMeta,
  MAX_TASK_SPEED,
  isTaskSpeed,
  checkTaskTargeting,
} from './task/validate';
export type { TaskRecordRules, CompiledTaskQuery } from './task/validate';

export { scheduleScore, SCORE } from './schedule/score';
export type { ScoreInput } from './schedule/score';
export { PriorityQueue } from './schedule/priority-queue';
// Load-aware dispatch: a task's needs from its size and speed, placed on the executor hosts' latest load reports.
export { planDispatch, needsOf } from './dispatch/plan-dispatch';
export type { DispatchInput, DispatchNeeds, DispatchPlan, DispatchReason, DispatchTask, UnitPlacement } from './dispatch/plan-dispatch';
export { freshLoads } from './dispatch/host-load';
export type { HostLoad, ReceivedLoad } from './dispatch/host-load';

export { HashRing } from './ring/hash-ring';
export { murmur3 } from './ring/murmur3';

// APTA membership (docs/apta.md): createMemberView, then aptaStep(view, { kind: 'tick' | 'received', now, ... }) -> { view, actions };
// allocateTasks(view.ring) gives task ownership.
export { APTA_STATES, APTA_EVENTS, APTA_ALLOCATION_STATES, aptaMachine } from './apta/states';
export type { AptaState, AptaEvent } from './apta/states';
export { APTA_MESSAGE_KINDS, checkAptaMessage } from './apta/messages';
export type { AptaMessage, AptaMessageKind, AptaAdvert, AptaTableEntry, AptaHello, AptaHelloReply, AptaLsrRequest, AptaLsrReply } from './apta/messages';
export { APTA_DEFAULTS, compileAptaConfig } from './apta/config';
export type { AptaOptions, AptaConfig } from './apta/config';
export { createMemberView, aptaPeer } from './apta/view';
export type { MemberView, NewMemberView, AptaPeerEntry, AptaLsrRound } from './apta/view';
export { aptaStep, aptaNextTickAt } from './apta/step';
export type { AptaInput, AptaAction, AptaStepResult } from './apta/step';
export { APTA_VNODES, allocateTasks, ownershipMoves } from './apta/allocation';
export type { TaskMove } from './apta/allocation';

export { LIST_MAGIC, LIST_VERSION, LIST_HEADER_BYTES, UIN_BYTES, ListFlags, encodeListHeader, decodeListHeader } from './recipient-list/format';
export type { ListHeader } from './recipient-list/format';
export { RecipientListDecoder } from './recipient-list/decoder';
export { RecipientListEncoder, encodeRecipientList } from './recipient-list/encoder';

export { radixSortUint32, isSortedUint32, uniqueSorted, subtractSorted, indexOfSorted } from './uins/sorted-set';

// Cross-site recovery (docs/recovery.md): the filtered list minus the reported ranges.
export { computeRemainder, mergeRanges, complementRanges, selectByRanges, rangesLength, parseBatchReport, ReportsMismatchError } from './recovery/remainder';
export type { ListRange, BatchReport, Remainder } from './recovery/remainder';

export { TypedArrayBitmap } from './presence/online-bitmap';
export type { OnlineView, OnlineBitmap } from './presence/online-bitmap';
export { PresenceOrder } from './presence/presence-order';
export type { PresenceOrderOptions } from './presence/presence-order';

// Randomised frequency release (docs/frequency.md): compileFrequencyPolicy(options) once, then
// budget(policy, uin, usedToday, now) or, for a sorted batch, withinBudget(policy, uins, counter.used(uins, dayOf(policy, now)), now).
export { compileFrequencyPolicy, FREQUENCY_DEFAULTS } from './frequency/policy';
export type { FrequencyOptions, FrequencyWindowOptions, FrequencyPolicy, CompetitionWindowOfDay } from './frequency/policy';
export { FREQUENCY_HASH_SEED, dayOf, dayStartsAt, slotReleaseTimes, releasedSlots, budget, windowAt } from './frequency/release';
export type { CompetitionWindow } from './frequency/release';
export { withinBudget } from './frequency/filter';
export type { FrequencyFilterResult } from './frequency/filter';
export { MAX_FREQUENCY_DAY, checkFrequencyDay, checkFrequencyUses, checkSortedUins } from './frequency/counter-rules';

// API access (docs/api.md "Authentication"): who a verified token stands for, what it may see,
// the token's text form (hashing and randomness live outside core), per-token rate limiting.
export { ROLES, ACCOUNT_ID_PATTERN, isAdmin, canSeeAccount, visibleAccountsOf } from './access/principal';
export type { Role, Principal } from './access/principal';
export { TOKEN_PREFIX, TOKEN_ID_PATTERN, TOKEN_SECRET_PATTERN, TOKEN_HASH_PATTERN, parseToken, formatToken, bearerToken } from './access/token';
export type { ParsedToken } from './access/token';
export {
  MAX_TOKEN_ACCOUNTS,
  MAX_TOKEN_NAME_CHARS,
  MAX_AUDIT_FIELD_CHARS,
  AUDIT_QUERY_DEFAULT_LIMIT,
  AUDIT_QUERY_MAX_LIMIT,
  checkTokenId,
  checkTokenName,
  checkTokenScope,
  checkNewAccessToken,
  checkRevokeTime,
  checkNewAuditEntry,
  compileAuditQuery,
  principalOfToken,
  auditMatches,
} from './access/records';
export type { AccessToken, StoredAccessToken, NewAccessToken, AuditEntry, NewAuditEntry, AuditQuery, AuditPage, CompiledAuditQuery } from './access/records';
export { RateLimiter, takeFromBucket } from './access/rate-limit';
export type { RateLimit, Bucket, Take } from './access/rate-limit';

// Cron campaigns (docs/campaigns.md): parseCron / checkTimeZone validate, nextFireTimes(campaign, after, n)
// gives fire times in the campaign's zone, planFirings(...) is the misfire policy.
export { parseCron, MAX_CRON_CHARS } from './campaign/cron';
export type { CronSchedule, CronField } from './campaign/cron';
export { checkTimeZone, wallClockAt, offsetAt, MAX_TIME_ZONE_CHARS } from './campaign/time-zone';
export type { WallClock } from './campaign/time-zone';
export { compileSchedule, nextFireTimes, MAX_FIRE_TIMES, MAX_FIRE_INSTANT } from './campaign/fire-times';
export type { ScheduleSpec, FireSchedule } from './campaign/fire-times';
export { planFirings, campaignTaskKey, MISFIRE_BATCH } from './campaign/misfire';
export { checkCampaignPeriod, smallestGap, projectedDailyReach } from './campaign/period';
export type { SmallestGap, ProjectedDailyReach } from './campaign/period';
export type { MisfireInput, FiringPlan } from './campaign/misfire';
export {
  FIRING_OUTCOMES,
  CAMPAIGN_QUERY_DEFAULT_LIMIT,
  CAMPAIGN_QUERY_MAX_LIMIT,
  MAX_CAMPAIGN_NAME_CHARS,
  MAX_CAMPAIGN_ID_CHARS,
  checkCampaignId,
  checkCampaignTime,
  checkTemplate,
  newCampaignRecord,
  applyCampaignPatch,
  compileCampaignQuery,
  compileFiringQuery,
  newFiringRecord,
  checkAdvance,
  campaignNotFound,
} from './campaign/model';
export type {
  Campaign,
  NewCampaign,
  CampaignPatch,
  CampaignTemplate,
  CampaignFiring,
  NewCampaignFiring,
  FiringOutcome,
  CampaignQuery,
  CampaignPage,
  FiringQuery,
  FiringPage,
  CompiledCampaignQuery,
  CompiledFiringQuery,
} from './campaign/model';
export type { CampaignStore } from './ports/campaign-store';

// Audience sources (docs/audience-sources.md): the AudienceSource port and its adapters' shared rules,
// follow/unfollow changes, the table source's checked description, and targeting: the query language,
// per-value bitsets in 2^16-uin chunks, and a query's plan evaluated chunk by chunk.
export { BAD_ROW_REASONS, DEFAULT_SOURCE_BATCH, MAX_SOURCE_BATCH, addBadRows, badRowTotal, classifyUin, checkSourceBatchSize, checkAscendingBatch } from './ports/audience-source';
export type { AudienceSource, AudienceReadOptions, AudienceBatch, BadRowReason, BadRowCounts } from './ports/audience-source';
export { checkAfterUin, checkFollowChange, checkFollowersAccount, followChangeWins, followEventKey, followPairKey, reduceFollowChanges } from './audience/follows';
export type { FollowChange } from './audience/follows';
export { FOLLOWER_SAMPLING, followerSampleSize, sampleErrorRate, judgeFollowerSamples } from './audience/follower-sampling';
export type { SamplingVerdict } from './audience/follower-sampling';
export type { FollowerStore, FollowApplyResult, FollowersOptions } from './ports/follower-store';
export { TABLE_CONDITION_OPS, MAX_TABLE_CONDITIONS, MAX_IN_VALUES, checkIdentifier, checkTableSourceSpec } from './audience/table-source-spec';
export type { TableSourceSpec, TableCondition, TableConditionOp, TableValue } from './audience/table-source-spec';
export { GENDERS, AGE_BANDS, UNIVERSE_KEY, MAX_TAGS_PER_USER, checkUserAttributes, userBitsetKeys, utcDay, isAttributeValue } from './targeting/attributes';
export type { Gender, AgeBand, UserAttributes } from './targeting/attributes';
export { CHUNK_BITS, CHUNK_UINS, CHUNK_WORDS, chunkOf, emptyChunk, setChunkBit, chunkHas, chunkCardinality, encodeChunk, decodeChunk, chunkMembers } from './targeting/bitset-chunk';
export { parseTargetingQuery, QUERY_ATTRIBUTES, MAX_QUERY_CHARS, MAX_QUERY_DEPTH, MAX_QUERY_TERMS } from './targeting/query';
export type { QueryNode, QueryAttribute, ActiveSince } from './targeting/query';
export { planTargetingQuery, planKeys, activeDaysOf, evaluatePlanChunk } from './targeting/plan';
export type { PlanNode, PlanContext } from './targeting/plan';
export { chunkEdits, applyChunkEdit, lastPerUin } from './targeting/index-edits';
export type { UserChange, ChunkEdit } from './targeting/index-edits';
export { MAX_USERS_PER_PUT } from './ports/attribute-index';
export type { AttributeIndex, StoredChunk } from './ports/attribute-index';
export { MAX_USERS_PER_LOOKUP, checkLookupSize, isLookupUin } from './ports/user-attribute-lookup';
export type { UserAttributeLookup } from './ports/user-attribute-lookup';

// B-side controls (docs/account-quotas.md): an account's daily quotas and frequency, scaled by its last
// click-through rate; reserveBroadcast(store, config.accounts, reservation) checks and records one broadcast.
export { LIMIT_NAMES, LIMIT_MAX, CONFIRMATION_LIMIT_NAMES, CONFIRMATION_LIMIT_MAX, OVERRIDABLE_LIMIT_NAMES, checkLimitValue, checkLimitsOverride, checkClickThroughRate, clickThroughFactor, baseLimits, scaleLimits, limitsInForce } from './account-quota/limits';
export type { AccountLimits, AccountLimitsOverride, ClickThroughPolicy, ConfirmationLimits, DefaultLimits, LimitName, LimitsInForce } from './account-quota/limits';
export { confirmationLimits, needsConfirmation, assertConfirmed, ConfirmationRequiredError } from './account-quota/confirmation';
export type { ReachOfBroadcast } from './account-quota/confirmation';
export { accountDayOf, checkAccountDay } from './account-quota/day';
export type { AccountDay } from './account-quota/day';
export { admit } from './account-quota/admit';
export { speedRefusal } from './account-quota/speed';
export type { AccountUsage, QuotaRequest, QuotaRefusal, Admission } from './account-quota/admit';
export {
  MAX_ACCOUNT_ID_CHARS,
  MAX_RESERVATION_KEY_CHARS,
  RESERVATION_RETENTION_MS,
  checkAccountId,
  checkReservationKey,
  checkQuotaTime,
  checkReservation,
  applySettingsPatch,
  decideReservation,
  quotaExceeded,
} from './account-quota/records';
export type { AccountSettings, AccountSettingsPatch, BroadcastReservation, ReserveResult } from './account-quota/records';
export { reserveBroadcast, checkBroadcast, accountConfirmation, describeAccountLimits } from './account-quota/reserve';
export type { AccountLimitsView } from './account-quota/reserve';
export type { AccountStore } from './ports/account-store';

export { compileConfig } from './config/compile';
export { isLoopbackHost } from './config/compile-management';
// Setting checks shared with adapters that take the same settings as options (one set of bounds and messages).
export { int as intSetting } from './config/validate';
export { checkClientCertPair, checkKafkaSaslMechanism, checkPlainHasTls } from './config/compile-connection-security';
export { KAFKA_LIMITS, checkKafkaBrokers, checkKafkaTopicPrefix, kafkaMs } from './config/kafka-settings';
export { ZOOKEEPER_LIMITS, checkZnodePath, checkZooKeeperConnectionString, checkZooKeeperCredentials, checkZooKeeperMonitorDigest, checkZooKeeperRoot, zookeeperMs } from './config/zookeeper-settings';
export { PRIVATE_FILE_MODE, PRIVATE_DIR_MODE, GROUP_READ_FILE_MODE } from './file-modes';
export { redactSecrets } from './redact';
export { DEFAULTS } from './config/options';
export type { CampaignsConfig, AccountsConfig, AudiencesConfig, LoadConfig } from './config/options';
export type { HeraldOptions, HeraldConfig, AuthConfig, DeliveryConfig, FrequencyConfig, InterfaceMember, ManagementConfig, PresenceMember, ProductionConfig, TopologyMember } from './config/options';
export type { BandwidthConfig, BandwidthTraffic } from './config/options';
// Connection security: SASL/TLS to Kafka, digest auth to ZooKeeper, TLS to MySQL, signed presence events (docs/security-connections.md).
export { KAFKA_SASL_MECHANISMS } from './config/connection-security';
export type { KafkaSaslMechanism, KafkaSaslOptions, KafkaSaslConfig, TlsFileOptions, TlsFileConfig, MySqlTlsOptions, MySqlTlsConfig, ZooKeeperAuthOptions, ZooKeeperAuthConfig, PresenceOptions, PresenceConfig } from './config/connection-security';

export type { TaskStore, TaskQuery, TaskPage, TaskPatch, UnitProgress, OutboxEvent } from './ports/task-store';
export type { AccessStore } from './ports/access-store';
export type { Coordinator, Election, UnitCheckpoint, StoredCheckpoint } from './ports/coordinator';
export { checkUnitKey, checkCheckpoint, checkRole, checkCandidateId, supersedes, byUnit } from './ports/coordinator-rules';
export { TOPICS, TOPIC_CLEANUP, topicCleanup } from './ports/event-bus';
export type { EventBus, BusEvent, ConsumedEvent, SubscribeOptions, Subscription } from './ports/event-bus';
export { checkTopic, checkGroup, checkEvents, checkSubscription } from './ports/event-bus-rules';
export type { CheckedEvent } from './ports/event-bus-rules';
export type { OfflineStore, OfflineEntry } from './ports/offline-store';
export type { ConfirmedBatch, ConfirmedBatchLog } from './ports/confirmed-batch-log';
export type { DeliveryGateway, Delivery } from './ports/delivery-gateway';
export type { FrequencyCounter, FrequencyUse } from './ports/frequency-counter';
export { noopLogger, noopMeter, systemClock, LATENCY_BUCKETS_SECONDS } from './ports/observability';
export type { Logger, Meter, Counter, Gauge, Histogram, Clock } from './ports/observability';

export { mulberry32, seededRandom } from './random';
export { retry } from './retry/retry';
export type { RetryOptions } from './retry/retry';
export { retryingCoordinator } from './retry/retrying-coordinator';
export { AdapterLifecycle } from './adapter/lifecycle';
export type { AdapterLifecycleOptions, ErrorTranslator } from './adapter/lifecycle';
export { AbstractTaskStore, taskNotFound, unitNotFound } from './adapter/abstract-task-store';
export type { TaskStoreBaseOptions } from './adapter/abstract-task-store';
export { AbstractEventBus } from './adapter/abstract-event-bus';
export type { EventBusBaseOptions, EventHandler } from './adapter/abstract-event-bus';
export { AbstractFrequencyCounter } from './adapter/abstract-frequency-counter';
export type { FrequencyCounterBaseOptions } from './adapter/abstract-frequency-counter';
