/**
 * @module @herald/controller
 *
 * The controller: an elected leader that relays the task store's outbox to
 * the event bus (at least once, in order per task) and moves confirmed unit
 * checkpoints from the coordinator into the task store.
 *
 * @example
 *   const controller = await startController({ id: 'controller-1' }, { coordinator, store, bus });
 *   // ... later
 *   await controller.stop();
 */
export { startController } from './controller';
export type { Controller, ControllerDeps, ControllerOptions } from './controller';
export { relayOutbox } from './outbox-relay';
export { syncCheckpoints } from './checkpoint-sync';
export type { SyncResult } from './checkpoint-sync';
