/** Structured logging, injected; the default does nothing. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const noopLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface Counter {
  inc(labels?: Record<string, string>, value?: number): void;
}

export interface Gauge {
  set(value: number, labels?: Record<string, string>): void;
}

/** A distribution (latencies, sizes): each observation falls in the buckets at or above it. */
export interface Histogram {
  observe(value: number, labels?: Record<string, string>): void;
}

/**
 * Upper bounds for latencies in seconds, 5 ms to 10 min: from a real-time
 * task's first delivery (tens of ms) to a large broadcast's completion.
 */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/**
 * Metrics, injected like the logger. Only @herald/metrics imports prom-client;
 * everything else asks a Meter for its counters. The default does nothing.
 */
export interface Meter {
  counter(name: string, help: string, labelNames?: readonly string[]): Counter;
  gauge(name: string, help: string, labelNames?: readonly string[]): Gauge;
  /** `buckets`: ascending upper bounds, in the unit the name says (`..._seconds`). */
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram;
}

export const noopMeter: Meter = {
  counter: () => ({ inc() {} }),
  gauge: () => ({ set() {} }),
  histogram: () => ({ observe() {} }),
};

/** Time, injected so tests can drive it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
