/**
 * @module @herald/controller
 *
 * The controller: an elected leader that relays the task store's outbox to
 * the event bus (at least once, in order per task), moves confirmed unit
 * checkpoints from the coordinator into the task store, and fires cron
 * campaigns (docs/campaigns.md): one task per scheduled time, even across a
 * failover.
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
export { runCampaignPass } from './campaign-pass';
export type { CampaignPassDeps, CampaignPassOptions, CampaignPassResult } from './campaign-pass';
export { nodeCronWakeups } from './cron-wakeups';
export type { CampaignWakeups } from './cron-wakeups';
export type { SyncResult } from './checkpoint-sync';
