/** The host manager's side of load-aware dispatch: /proc readings, free sender slots, and the report loop. */
export { readProcCounters, parseStat, parseMeminfo, parseNetDev } from './proc-stats';
export type { ProcCounters } from './proc-stats';
export { createHostSampler } from './host-sampler';
export type { HostSample } from './host-sampler';
export { createUnitSlots, UNIT_IDLE_MS } from './unit-slots';
export type { UnitSlots } from './unit-slots';
export { startLoadReporter } from './load-reporter';
export type { LoadReporter, LoadReporterDeps } from './load-reporter';
