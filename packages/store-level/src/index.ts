/**
 * @module @herald/store-level
 *
 * Herald's embedded adapters on LevelDB (classic-level): a TaskStore, an
 * OfflineStore, an AccessStore (API tokens, audit log), a CampaignStore
 * (cron campaigns), an AccountStore (B-side quotas) and an executor's ConfirmedBatchLog that each own one directory. They pass the same conformance
 * suites (@herald/testing) as the production adapters, so a single-process
 * Herald (tests, demos, the embedded package) behaves like the real one.
 *
 * @example
 *   import { LevelOfflineStore, LevelTaskStore } from '@herald/store-level';
 *   const tasks = await LevelTaskStore.open('/var/lib/herald/tasks');
 *   const offline = await LevelOfflineStore.open('/var/lib/herald/offline', { rangeBits: 16 });
 *   const task = await tasks.createTask(newTask, Date.now());
 *   await offline.append(task.id, task.expiresAt, Uint32Array.of(7, 42, 1_000_000));
 *   await offline.pending(42); // [{ taskId: task.id, expiresAt: task.expiresAt }]
 */
export { LevelTaskStore } from './level-task-store';
export { LevelAccessStore } from './level-access-store';
export { LevelCampaignStore } from './level-campaign-store';
export { LevelAccountStore } from './level-account-store';
export { LevelFollowerStore } from './level-follower-store';
export { LevelAttributeIndex } from './level-attribute-index';
export { LevelOfflineStore, DEFAULT_RANGE_BITS } from './level-offline-store';
export type { LevelOfflineStoreOptions } from './level-offline-store';
export { LevelFrequencyCounter, DEFAULT_RETAIN_DAYS } from './level-frequency-counter';
export type { LevelFrequencyCounterOptions } from './level-frequency-counter';
export { LevelConfirmedBatchLog } from './level-confirmed-batch-log';
export { LevelDeliveryRecordLog } from './level-delivery-record-log';
export { LevelDeviceRegistry } from './level-device-registry';
