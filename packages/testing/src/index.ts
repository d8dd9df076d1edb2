/**
 * @module @herald/testing
 *
 * What every Herald adapter's tests share: one conformance suite per port
 * (the same tests for the embedded and the production adapters, like
 * abstract-level's shared suite), plus small helpers that keep tests free of
 * sleeps and of shared state.
 *
 * @example
 *   // packages/store-level/src/level-task-store.test.ts
 *   import { makeTempDir, taskStoreConformance } from '@herald/testing';
 *   import { LevelTaskStore } from './level-task-store';
 *
 *   taskStoreConformance('LevelTaskStore', async () => {
 *     const dir = await makeTempDir('herald-task-store-');
 *     return { store: await LevelTaskStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export { taskStoreConformance } from './task-store/conformance';
export { campaignStoreConformance } from './campaign-store/conformance';
export { newCampaign, CAMPAIGN_NOW } from './campaign-store/fixtures';
export { offlineStoreConformance } from './offline-store/conformance';
export { offlineRestartConformance } from './offline-store/restart';
export type { OfflineStoreFactory, OpenedOfflineStore } from './offline-store/restart';
export { confirmedBatchLogConformance } from './confirmed-batch-log/conformance';
export { deliveryGatewayConformance } from './delivery-gateway/conformance';
export type { DeliveryGatewayHarness, DownstreamAnswer, ReceivedDelivery } from './delivery-gateway/conformance';
export { WebhookReceiver } from './delivery-gateway/webhook-receiver';
export { Http2PushServer } from './delivery-gateway/http2-push-server';
export type { Http2Reply, Http2Request } from './delivery-gateway/http2-push-server';
export { Http2FcmServer, FCM_ERRORS } from './delivery-gateway/http2-fcm-server';
export type { FcmAnswer, FcmRequest } from './delivery-gateway/http2-fcm-server';
export { Http2ApnsServer, APNS_ERRORS } from './delivery-gateway/http2-apns-server';
export type { ApnsAnswer, ApnsRequest } from './delivery-gateway/http2-apns-server';
export { selfSignedCertificate } from './delivery-gateway/self-signed';
export type { Certificate } from './delivery-gateway/self-signed';
export {
  apnsRateLimitedPolicy,
  fcmRateLimitedPolicy,
  rateLimitedPolicy,
  settledSending,
  zmqRateLimitedPolicy,
} from './delivery-gateway/rate-limited-policy';
export type {
  RateLimitedAnswer,
  RateLimitedPolicy,
  RateLimitOptions,
  SettledSending,
} from './delivery-gateway/rate-limited-policy';
export { KafkaDeliveryConsumer } from './delivery-gateway/kafka-delivery-consumer';
export { ZmqPushReceiver } from './delivery-gateway/zmq-push-receiver';
export type {
  ZmqPushAnswer,
  ZmqPushPolicy,
  ZmqPushReceiverOptions,
  ZmqPushRequest,
} from './delivery-gateway/zmq-push-receiver';
export type { DeliveryRecordRead, KafkaDeliveryConsumerOptions } from './delivery-gateway/kafka-delivery-consumer';
export type { WebhookAnswer, WebhookPolicy, WebhookRequest } from './delivery-gateway/webhook-receiver';
export { accessStoreConformance } from './access-store/conformance';
export { accountStoreConformance } from './account-store/conformance';
export { frequencyCounterConformance } from './frequency-counter/conformance';
export { deviceRegistryConformance, fcmToken, apnsToken } from './device-registry/conformance';
export type { DeviceRegistryFactory, OpenedDeviceRegistry } from './device-registry/conformance';
export { MemoryDeviceRegistry, MemoryDevices } from './device-registry/memory-device-registry';
export type { FrequencyCounterFactory, OpenedFrequencyCounter } from './frequency-counter/conformance';
export { eventBusConformance } from './event-bus/conformance';
export { audienceSourceConformance, readAll as readAudience } from './audience-source/conformance';
export type { AudienceSourceHarness, AudienceSourceHarnessFactory } from './audience-source/conformance';
export { followerStoreConformance } from './audience-source/follower-store';
export { sortedFollowerStore } from './audience-source/sorted-follower-store';
export { attributeIndexConformance } from './audience-source/attribute-index';
export { userAttributeLookupConformance } from './audience-source/user-attribute-lookup';
export {
  coordinatorConformance,
  type CoordinatorCluster,
  type CoordinatorClusterFactory,
} from './coordinator/conformance';
export type { OpenedStore, StoreFactory } from './store-factory';
export { MigratedDatabases, useMigratedDatabases } from './migrated-databases';
export type { LentDatabase, MigratedDatabasesOptions, SqlConnection } from './migrated-databases';
export { HOSTILE_STRINGS } from './task-store/data';
export { newTask, NOW as FIXTURE_NOW } from './task-store/fixtures';
export { searchAll } from './task-store/search';
export { rejectsWithCode } from './assertions';
export { TestZooKeeper, TestKafka, ensureSharedMariaDb, PrivateMariaDb, freePort, waitForPort } from './services';
export { FaultySockets } from './services/fault-sockets';
export type { SocketFactoryArgs } from './services/fault-sockets';
export { TEST_ADMIN_TOKEN, TEST_AUTH_OPTIONS, authHeaders } from './access-tokens';
export { TEST_CAMPAIGN_OPTIONS, TEST_TASK_OPTIONS } from './cluster-options';
export { waitFor, WaitForTimeoutError } from './wait-for';
export type { WaitForOptions } from './wait-for';
export { makeTempDir } from './temp-dir';
export { promtoolCheckMetrics } from './promtool';
export type { PromtoolVerdict } from './promtool';
export { sweepManagementPort, sweepRequests, sendRaw } from './management-sweep';
export type { SweepAnswer, RawRequest } from './management-sweep';
export type { TempDir } from './temp-dir';
export { spreadUins } from './random';
export { ProcessCluster } from './process-cluster';
export type { ClusterShape, ProcessHandle } from './process-cluster';
export { NetnsCluster, NETNS_SCRIPT } from './netns-cluster';
export type { HostProcesses } from './netns-cluster';
export { LOCAL_TIME_ZONES } from './time-zones';
