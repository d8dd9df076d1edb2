import { ConfigError } from '../errors';
import type { BandwidthConfig, BandwidthTraffic, HeraldOptions } from './options';
import { section } from './section';
import { str } from './validate';

const TRAFFIC: readonly BandwidthTraffic[] = ['realtime', 'normal', 'storage'];
const KIND_DEFAULTS: Record<BandwidthTraffic, string> = { realtime: 'realtime', normal: 'bulk', storage: 'storage' };
/** What cgroup/classes.conf accepts as a class name (cgroup/lib.sh), less the reserved link and other. */
const KIND = /^[a-z][a-z0-9_-]*$/;

/** The `bandwidth` section (docs/configuration.md): off by default; names are checked here, the class file by the scripts. */
export function compileBandwidth(options: HeraldOptions): BandwidthConfig {
  const bandwidth = section(options, 'bandwidth', ['enabled', 'script', 'kinds', 'executors']);
  if (bandwidth.enabled !== undefined && typeof bandwidth.enabled !== 'boolean')
    throw new ConfigError('bandwidth.enabled', `must be true or false (got ${JSON.stringify(bandwidth.enabled)})`);
  const script = str('bandwidth.script', bandwidth.script, 'cgroup/run-in-class.sh');
  if (script === '')
    throw new ConfigError('bandwidth.script', 'must name the run-in-class.sh to start executors through');
  const kinds = object('bandwidth.kinds', bandwidth.kinds);
  for (const key of Object.keys(kinds))
    if (!(TRAFFIC as readonly string[]).includes(key))
      throw new ConfigError(`bandwidth.kinds.${key}`, `is not a traffic (one of ${TRAFFIC.join(', ')})`);
  const compiledKinds = { ...KIND_DEFAULTS };
  for (const traffic of TRAFFIC) {
    const kind = kinds[traffic];
    if (kind === undefined) continue;
    if (typeof kind !== 'string' || !KIND.test(kind) || kind === 'link' || kind === 'other') {
      throw new ConfigError(
        `bandwidth.kinds.${traffic}`,
        `must be a class name of cgroup/classes.conf (lower-case letters, digits, - or _; not link or other), got ${JSON.stringify(kind)}`,
      );
    }
    compiledKinds[traffic] = kind;
  }
  const executors: Record<string, BandwidthTraffic> = {};
  for (const [id, traffic] of Object.entries(object('bandwidth.executors', bandwidth.executors))) {
    if (typeof traffic !== 'string' || !(TRAFFIC as readonly string[]).includes(traffic))
      throw new ConfigError(
        `bandwidth.executors.${id}`,
        `must be one of ${TRAFFIC.join(', ')} (got ${JSON.stringify(traffic)})`,
      );
    executors[id] = traffic as BandwidthTraffic;
  }
  return { enabled: bandwidth.enabled ?? false, script, kinds: compiledKinds, executors };
}

function object(path: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  return value as Record<string, unknown>;
}
