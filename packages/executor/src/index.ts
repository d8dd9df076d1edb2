/**
 * @module @herald/executor
 *
 * The executor tier: online check, delivery through the DeliveryGateway port,
 * offline lists for the rest, progress reports; delivery at login; and the
 * file sink, the first DeliveryGateway adapter.
 *
 * @example
 *   const executor = startExecutor({ id: 'executor-1', inbox, toScheduler,
 *     tasks: new TaskCache(store), online: bitmap, gateway: new FileDeliverySink(dir), offline });
 */
export { CONFIRMATIONS_IN_FLIGHT, startExecutor } from './executor';
export type { Executor, ExecutorDeps } from './executor';
export type { FrequencyControl } from './frequency-control';
export { LoginDelivery } from './login-delivery';
export type { LoginDeliveryResult } from './login-delivery';
export { createLoginQueue } from './login-queue';
export type { LoginQueue, LoginQueueOptions } from './login-queue';
export { FileDeliverySink, readDeliveryFile } from './file-sink';
export type { SinkRecords } from './file-sink';
export { WebhookDeliveryGateway } from './webhook-gateway';
export type { WebhookBatch, WebhookGatewayOptions } from './webhook-gateway';
export { ZmqDeliveryGateway } from './zmq-gateway';
export type { ZmqGatewayCurve, ZmqGatewayOptions } from './zmq-gateway';
export { openZmqGateway, loadZmqCurve } from './zmq-channel';
export { FcmDeliveryGateway } from './mobile-push/fcm-gateway';
export type { FcmGatewayOptions, FcmMessageBody } from './mobile-push/fcm-gateway';
export { parseServiceAccount } from './mobile-push/fcm-credentials';
export type { ServiceAccount } from './mobile-push/fcm-credentials';
export { ApnsDeliveryGateway, readApnsKey } from './mobile-push/apns-gateway';
export type { ApnsGatewayOptions } from './mobile-push/apns-gateway';
export { createDeliveryGateway, pacedChannel } from './delivery-gateway';
export type { ChannelObservers, ChannelSettings } from './delivery-gateway';
export { PacedDeliveryGateway, BATCH_REFUSED } from './paced-gateway';
export { channelControlOf } from './channel-control';
export type { ChannelLimitsControl, ChannelLimitsRead } from './channel-control';
export type { ChannelHoldSource, ChannelThrottle, PacedGatewayOptions } from './paced-gateway';
export { TaskCache } from './task-cache';
export type { PacingOptions } from './pacer';
export { speedShareOf, SPEED_SHARE_REFRESH_MS } from './speed-share';
export { MemoryConfirmedBatchLog, MAX_CONFIRMED_UNITS } from './memory-confirmed-batch-log';
export { Personaliser } from './personalise';
export { watchOfflineStoreSize } from './offline-size';
export { startOfflinePurge } from './offline-purge';
export type { OfflinePurgeOptions, OfflinePurgeSweep } from './offline-purge';
export { createHostSampler, createUnitSlots, readProcCounters, startLoadReporter, UNIT_IDLE_MS } from './host-load';
export type { HostSample, LoadReporter, LoadReporterDeps, ProcCounters, UnitSlots } from './host-load';
