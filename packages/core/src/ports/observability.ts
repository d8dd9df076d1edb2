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

/**
 * Metrics, injected like the logger. Only @herald/metrics imports prom-client;
 * everything else asks a Meter for its counters. The default does nothing.
 */
export interface Meter {
  counter(name: string, help: string, labelNames?: readonly string[]): Counter;
  gauge(name: string, help: string, labelNames?: readonly string[]): Gauge;
}

export const noopMeter: Meter = {
  counter: () => ({ inc() {} }),
  gauge: () => ({ set() {} }),
};

/** Time, injected so tests can drive it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
