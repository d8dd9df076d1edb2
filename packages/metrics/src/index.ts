/**
 * @module @herald/metrics
 *
 * Observability adapters: the Meter port on prom-client (the only package
 * that imports it) and a structured JSON-lines Logger on pino, with child loggers.
 *
 * @example
 *   const meter = createPromMeter({ defaultMetrics: true });
 *   meter.counter('herald_things_total', 'Things').inc();
 *   const { body } = await meter.exposition();
 */
export { createPromMeter } from './prom-meter';
export type { PromMeter } from './prom-meter';
export { createJsonLogger, REDACTED_FIELDS } from './json-logger';
export type { JsonLogger, JsonLoggerOptions } from './json-logger';
