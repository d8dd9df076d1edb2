/**
 * @module @herald/production
 *
 * The production profile: one tier per process (`herald start <tier>`), the
 * MySQL task store, the ZooKeeper coordinator, the Kafka event bus, and
 * ZeroMQ over tcp with CURVE between every pair of processes.
 *
 * @example
 *   const tier = await startTier('scheduler', { config, id: 'scheduler-1', logger, meter });
 *   // ... on SIGTERM
 *   await tier.stop();
 */
export { inClassCommand, IN_CLASS_ENV } from './bandwidth';
export { startTier } from './start';
export { TIERS } from './tiers/tier';
export type { TierName, TierContext, RunningTier } from './tiers/tier';
export { writeKeys, readKeyPair, readPublicKey, allowedKeys } from './keys';
export { openTaskStore, connectCoordinator, connectEventBus } from './adapters';
export { openDeliveryGateway } from './delivery';
export { kafkaSecurityOptions, mysqlOptions, mysqlTlsOptions } from './connection-security';
export { ProcessLinks } from './links';
export { startManagementServer } from './management';
export { hashManagementToken, requiredTokenHash } from './management-guard';
export type { ManagedProcess, ManagementOptions, ManagementServer } from './management';
export { recoverTask, readTaskReports, readOriginTask } from './recover';
export type { RecoverOptions, RecoverySummary, OriginTask, ReportSource } from './recover';
export { ClusterDeliveryRecords } from './cluster-delivery-records';
export { ExecutorRecordsClient, HostDown, RECORDS_TIMEOUT_MS } from './executor-records';
export { MAX_BATCH_PAGE, MAX_LOGIN_PAGE } from './management-records';
