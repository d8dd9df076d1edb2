import { DEFAULTS, type HeraldOptions, type LoadConfig } from './options';
import { section } from './section';
import { int } from './validate';

const KEYS = [
  'reportIntervalMs',
  'maxReportAgeMs',
  'senderSlots',
  'nicBytesPerSecond',
  'memoryBytesPerRecipient',
  'cpuMicrosPerRecipient',
  'nicBytesPerRecipient',
  'globalSpeedSharePercent',
];

/**
 * Load-aware dispatch settings (docs/configuration.md, `load`;
 * docs/scheduling.md "Load-aware dispatch"). The per-recipient costs are at
 * least 1, so a host's spare capacity divided by them is always a number.
 */
export function compileLoad(options: HeraldOptions): LoadConfig {
  const load = section(options, 'load', KEYS);
  const d = DEFAULTS.load;
  const reportIntervalMs = int('load.reportIntervalMs', load.reportIntervalMs, d.reportIntervalMs, 100, 3_600_000);
  return {
    reportIntervalMs,
    // Below the interval every report would be stale before the next one arrives.
    maxReportAgeMs: int(
      'load.maxReportAgeMs',
      load.maxReportAgeMs,
      Math.max(d.maxReportAgeMs, 3 * reportIntervalMs),
      reportIntervalMs,
      86_400_000,
    ),
    senderSlots: int('load.senderSlots', load.senderSlots, d.senderSlots, 1, 1_000_000),
    nicBytesPerSecond: int('load.nicBytesPerSecond', load.nicBytesPerSecond, d.nicBytesPerSecond, 1, 2 ** 40),
    memoryBytesPerRecipient: int(
      'load.memoryBytesPerRecipient',
      load.memoryBytesPerRecipient,
      d.memoryBytesPerRecipient,
      1,
      1 << 20,
    ),
    cpuMicrosPerRecipient: int(
      'load.cpuMicrosPerRecipient',
      load.cpuMicrosPerRecipient,
      d.cpuMicrosPerRecipient,
      1,
      1_000_000,
    ),
    nicBytesPerRecipient: int(
      'load.nicBytesPerRecipient',
      load.nicBytesPerRecipient,
      d.nicBytesPerRecipient,
      1,
      1 << 20,
    ),
    globalSpeedSharePercent: int(
      'load.globalSpeedSharePercent',
      load.globalSpeedSharePercent,
      d.globalSpeedSharePercent,
      1,
      100,
    ),
  };
}
