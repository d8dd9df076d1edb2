import { ConfigError } from '../errors';
import { DEFAULTS, type HeraldOptions, type ManagementConfig } from './options';
import { section } from './section';
import { int } from './validate';

const HOST_PORT = /^[^:\s/]+:\d{1,5}$/;

/**
 * The management endpoints (docs/operations.md): one plain-HTTP listener per
 * process, apart from the public API, for `herald admin` (status, drain) and
 * Prometheus. Each process looks up its own id; a process without an entry
 * has no management endpoint unless `herald start --management` names one.
 */
export function compileManagement(options: HeraldOptions): ManagementConfig {
  const management = section(options, 'management', ['endpoints', 'drainTimeoutMs', 'faults']);
  const endpoints: Record<string, string> = {};
  const raw = management.endpoints ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('management.endpoints', 'must be an object of process id -> "host:port"');
  const taken = new Map<string, string>();
  for (const [id, address] of Object.entries(raw)) {
    const path = `management.endpoints.${id}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new ConfigError(path, 'the process id must be letters, digits, _ . -');
    if (typeof address !== 'string' || !HOST_PORT.test(address) || Number(address.split(':')[1]) > 65535) throw new ConfigError(path, `must be "host:port" (got ${JSON.stringify(address)})`);
    const other = taken.get(address);
    if (other !== undefined) throw new ConfigError(path, `repeats the address of ${other}`);
    taken.set(address, id);
    endpoints[id] = address;
  }
  if (management.faults !== undefined && typeof management.faults !== 'boolean') throw new ConfigError('management.faults', `must be true or false (got ${JSON.stringify(management.faults)})`);
  return {
    endpoints,
    drainTimeoutMs: int('management.drainTimeoutMs', management.drainTimeoutMs, DEFAULTS.management.drainTimeoutMs, 0, 3_600_000),
    faults: management.faults ?? false,
  };
}
