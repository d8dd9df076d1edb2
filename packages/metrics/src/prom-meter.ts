import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
  collectDefaultMetrics,
} from 'prom-client';
import { redactSecrets } from '@herald/core';
import type { Counter, Gauge, Histogram, Meter } from '@herald/core/ports';

export interface PromMeter extends Meter {
  readonly registry: Registry;
  /** The Prometheus text exposition, for GET /metrics. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

/**
 * The Meter port on prom-client. Asking twice for the same name returns the
 * same metric, so several tiers in one process can share a registry.
 */
export function createPromMeter(options: { defaultMetrics?: boolean } = {}): PromMeter {
  const registry = new Registry();
  if (options.defaultMetrics) {
    collectDefaultMetrics({ register: registry });
    dropMisnamedDefaults(registry);
  }
  const counters = new Map<string, PromCounter>();
  const gauges = new Map<string, PromGauge>();
  const histograms = new Map<string, PromHistogram>();
  return {
    registry,
    counter(name, help, labelNames = []): Counter {
      let counter = counters.get(name);
      if (counter === undefined) {
        counter = new PromCounter({ name, help, labelNames: [...labelNames], registers: [registry] });
        counters.set(name, counter);
      }
      const c = counter;
      return { inc: (labels, value = 1) => (labels ? c.inc(clean(labels), value) : c.inc(value)) };
    },
    gauge(name, help, labelNames = []): Gauge {
      let gauge = gauges.get(name);
      if (gauge === undefined) {
        gauge = new PromGauge({ name, help, labelNames: [...labelNames], registers: [registry] });
        gauges.set(name, gauge);
      }
      const g = gauge;
      return { set: (value, labels) => (labels ? g.set(clean(labels), value) : g.set(value)) };
    },
    histogram(name, help, labelNames, buckets): Histogram {
      let histogram = histograms.get(name);
      if (histogram === undefined) {
        histogram = new PromHistogram({
          name,
          help,
          labelNames: [...labelNames],
          buckets: [...buckets],
          registers: [registry],
        });
        histograms.set(name, histogram);
      }
      const h = histogram;
      return { observe: (value, labels) => (labels ? h.observe(clean(labels), value) : h.observe(value)) };
    },
    async exposition() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * prom-client's default collectors expose three gauges named like counters
 * (`_total`), which `promtool check metrics` rejects. Each is the sum of its
 * by-type twin, which stays: `nodejs_active_handles_total` is
 * `sum(nodejs_active_handles)`, and the same for `_requests` and `_resources`
 * (docs/operations.md, "Metrics").
 */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

function dropMisnamedDefaults(registry: Registry): void {
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
}

/** Label values seen so far, redacted: labels are few by design, so each value is redacted once. */
const redacted = new Map<string, string>();

function redactedValue(value: string): string {
  if (typeof value !== 'string') return value; // a JavaScript caller's number: nothing to hide
  let shown = redacted.get(value);
  if (shown === undefined) {
    shown = redactSecrets(value);
    if (redacted.size < 10_000) redacted.set(value, shown);
  }
  return shown;
}

/**
 * Labels with every value redacted (a label built from an error message or an
 * endpoint may hold a credential). Counters are bumped on hot paths: the
 * labels object is passed on as it is unless a value changed.
 */
function clean(labels: Record<string, string>): Record<string, string> {
  for (const value of Object.values(labels)) {
    if (redactedValue(value) !== value)
      return Object.fromEntries(Object.entries(labels).map(([n, v]) => [n, redactedValue(v)]));
  }
  return labels;
}
