/**
 * @module @herald/core/adapter
 *
 * One adapter lifecycle for every adapter (open/closed bookkeeping, error
 * translation once, close after the calls in flight, per-method retries) and a
 * base per port family with two adapters: the public method checks its
 * arguments with core's rules once, then calls the adapter's protected `_hook`,
 * which only touches its storage (after abstract-level's pattern). No I/O here.
 *
 * @example
 *   import { AbstractFrequencyCounter } from '@herald/core/adapter';
 *   class MyCounter extends AbstractFrequencyCounter {
 *     protected async _used(sortedUins: Uint32Array, day: number) { ... }
 *   }
 */
export { AdapterLifecycle } from './lifecycle';
export type { AdapterLifecycleOptions, ErrorTranslator } from './lifecycle';
export { AbstractTaskStore, taskNotFound, unitNotFound } from './abstract-task-store';
export type { TaskFence, TaskStoreBaseOptions } from './abstract-task-store';
export { AbstractEventBus } from './abstract-event-bus';
export type { EventBusBaseOptions, EventHandler } from './abstract-event-bus';
export { AbstractFrequencyCounter } from './abstract-frequency-counter';
export type { FrequencyCounterBaseOptions } from './abstract-frequency-counter';
export { AbstractDeviceRegistry } from './abstract-device-registry';
export type { DeviceRegistryBaseOptions } from './abstract-device-registry';
