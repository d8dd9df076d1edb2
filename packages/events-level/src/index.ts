/**
 * @module @herald/events-level
 *
 * The embedded EventBus: an append-only event log per topic in LevelDB
 * (classic-level), with committed positions per consumer group and in-process
 * wake-ups instead of polling. It passes the same conformance suite
 * (@herald/testing `eventBusConformance`) as the Kafka adapter, so the
 * embedded profile's presence, reports and task events behave like
 * production's.
 *
 * @example
 *   import { TOPICS } from '@herald/core/ports';
 *   import { LevelEventLog } from '@herald/events-level';
 *   const bus = await LevelEventLog.open('/var/lib/herald/events');
 *   const sub = await bus.subscribe(TOPICS.taskEvents, 'console', async (events) => {
 *     for (const e of events) console.log(e.key, e.value);
 *   }, { fromBeginning: true });
 *   await bus.publish(TOPICS.taskEvents, [{ key: '42', value: { to: 'SENDING' }, timestamp: Date.now() }]);
 *   await sub.close();
 *   await bus.close();
 */
export { LevelEventLog, DEFAULT_BATCH_SIZE } from './level-event-log';
export type { LevelEventLogOptions } from './level-event-log';
