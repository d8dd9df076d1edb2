/**
 * @module @herald/compose
 *
 * The one composition root: builds each tier (scheduler, dispatcher,
 * executor, interface, controller, presence agent) from the compiled config
 * and a set of adapters. A profile only chooses the adapters: LevelDB or
 * MySQL stores, the in-process or ZooKeeper coordinator, no bus or Kafka,
 * inproc or tcp+CURVE links. The embedded profile builds every tier in one
 * process with shared stores; production builds one tier per process.
 *
 * @example
 *   const scope = new Resources();
 *   const { dispatcher } = await scope.starting(() =>
 *     buildDispatcher({ config, adapters, scope, links: openDispatcherLinks, logger, meter }));
 *   // ... later: closes the links, waits for the streams, then closes what it opened
 *   await scope.closeAll();
 */
export { Resources } from './resources';
export type { ExecutorAdapters, FilterAudiences, Open, TierAdapters } from './adapters';
export type {
  ControllerLinks,
  DispatcherLinks,
  ExecutorLinks,
  InterfaceLinks,
  OwnershipRing,
  SchedulerLinks,
  TierLinks,
} from './links';
export type { TierBuild } from './build';
export { buildScheduler } from './scheduler';
export type { SchedulerBuild } from './scheduler';
export { buildDispatcher, chainSourcesOf } from './dispatcher';
export { buildExecutor, buildLoginDelivery } from './executor';
export type { ExecutorBuild } from './executor';
export { buildInterface } from './interface';
export type { InterfaceBuild } from './interface';
export { buildController } from './controller';
export type { ControllerBuild } from './controller';
export { buildPresenceAgent } from './presence';
export type { PresenceBuild, PresenceLinks, WrittenBitmap } from './presence';
