import { ConfigError } from '../errors';
import { checkKnownKeys, int } from '../config/validate';
import { APTA_VNODES } from './allocation';

/**
 * APTA timers, step one of three: what an operator may set (all optional).
 * Production keeps the defaults; tests shrink them (e.g. 100 / 400 / 1200).
 */
export interface AptaOptions {
  /** How often a process broadcasts a Hello. Default 1000. */
  helloIntervalMs?: number;
  /**
   * A peer whose heartbeat has not advanced for this long is marked OFFLINE;
   * a process that heard nothing at all for this long goes OFFLINE itself.
   * At least 2 x helloIntervalMs. Default 4000 (4 Hellos, as OSPF).
   */
  deadIntervalMs?: number;
  /** How long SILENCE lasts after the last LSR before WORKING (the seed's 12 s). At least helloIntervalMs. Default 12000. */
  silencePeriodMs?: number;
  /** How long a process that has heard nobody waits before founding a cluster alone. At least helloIntervalMs. Default deadIntervalMs. */
  joinTimeoutMs?: number;
  /** How often an ONLINE process re-sends an unanswered LSR request. Default helloIntervalMs. */
  lsrRetransmitMs?: number;
  /**
   * Virtual nodes per member on the task ring, 1 .. 10000. Default 2000 (APTA_VNODES): the busiest of 200
   * members then holds 1.07 x the mean. Every member must use the same count, or they disagree on owners.
   */
  virtualNodes?: number;
}

/** Step three: every timer filled in and checked, in ms. */
export interface AptaConfig {
  helloIntervalMs: number;
  deadIntervalMs: number;
  silencePeriodMs: number;
  joinTimeoutMs: number;
  lsrRetransmitMs: number;
  virtualNodes: number;
}

export const APTA_DEFAULTS = {
  helloIntervalMs: 1000,
  deadIntervalMs: 4000,
  silencePeriodMs: 12_000,
} as const;

const HOUR = 3_600_000;

/**
 * Defaults, then validation. Throws ConfigError naming the setting as
 * `<path>.<name>` (path 'apta' unless the caller nests it elsewhere, e.g.
 * 'scheduler.apta').
 */
export function compileAptaConfig(options: AptaOptions = {}, path = 'apta'): AptaConfig {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, options, [
    'helloIntervalMs',
    'deadIntervalMs',
    'silencePeriodMs',
    'joinTimeoutMs',
    'lsrRetransmitMs',
    'virtualNodes',
  ]);
  const name = (key: keyof AptaOptions) => `${path}.${key}`;
  const helloIntervalMs = int(name('helloIntervalMs'), options.helloIntervalMs, APTA_DEFAULTS.helloIntervalMs, 1, HOUR);
  const deadIntervalMs = int(name('deadIntervalMs'), options.deadIntervalMs, APTA_DEFAULTS.deadIntervalMs, 1, HOUR);
  if (deadIntervalMs < 2 * helloIntervalMs) {
    throw new ConfigError(
      name('deadIntervalMs'),
      `must be at least 2 x ${name('helloIntervalMs')} (${2 * helloIntervalMs}), or one lost Hello marks a live peer dead`,
    );
  }
  const silencePeriodMs = int(name('silencePeriodMs'), options.silencePeriodMs, APTA_DEFAULTS.silencePeriodMs, 1, HOUR);
  if (silencePeriodMs < helloIntervalMs) {
    throw new ConfigError(
      name('silencePeriodMs'),
      `must be at least ${name('helloIntervalMs')} (${helloIntervalMs}), so every member hears the others' states before WORKING`,
    );
  }
  const joinTimeoutMs = int(name('joinTimeoutMs'), options.joinTimeoutMs, deadIntervalMs, 1, HOUR);
  if (joinTimeoutMs < helloIntervalMs) {
    throw new ConfigError(
      name('joinTimeoutMs'),
      `must be at least ${name('helloIntervalMs')} (${helloIntervalMs}), or a process founds a cluster before it could hear one`,
    );
  }
  const lsrRetransmitMs = int(name('lsrRetransmitMs'), options.lsrRetransmitMs, helloIntervalMs, 1, HOUR);
  const virtualNodes = int(name('virtualNodes'), options.virtualNodes, APTA_VNODES, 1, 10_000);
  return { helloIntervalMs, deadIntervalMs, silencePeriodMs, joinTimeoutMs, lsrRetransmitMs, virtualNodes };
}
