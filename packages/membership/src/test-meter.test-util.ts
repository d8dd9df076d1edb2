/** A Meter that records, for the membership specs; excluded from the build. */
import type { Meter } from '@herald/core/ports';

export interface RecordingMeter extends Meter {
  /** Sum of a counter over every label set that includes `labels`. */
  count(name: string, labels?: Record<string, string>): number;
  /** The last value a gauge was set to with exactly these labels. */
  gaugeValue(name: string, labels: Record<string, string>): number | undefined;
}

const key = (labels: Record<string, string>) =>
  JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));

export function recordingMeter(): RecordingMeter {
  const counters = new Map<string, { labels: Record<string, string>; value: number }[]>();
  const gauges = new Map<string, Map<string, number>>();
  return {
    counter(name) {
      const series = counters.get(name) ?? [];
      counters.set(name, series);
      return {
        inc(labels = {}, value = 1) {
          const found = series.find((s) => key(s.labels) === key(labels));
          if (found) found.value += value;
          else series.push({ labels, value });
        },
      };
    },
    gauge(name) {
      const values = gauges.get(name) ?? new Map<string, number>();
      gauges.set(name, values);
      return { set: (value, labels = {}) => void values.set(key(labels), value) };
    },
    histogram() {
      return { observe() {} };
    },
    count(name, labels = {}) {
      let sum = 0;
      for (const s of counters.get(name) ?? [])
        if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
      return sum;
    },
    gaugeValue(name, labels) {
      return gauges.get(name)?.get(key(labels));
    },
  };
}
