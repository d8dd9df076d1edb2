import { ConfigError } from '../errors';
import { DEFAULTS, type HeraldOptions, type ManagementConfig } from './options';
import { section } from './section';
import { int } from './validate';

const HOST_PORT = /^[^:\s/]+:\d{1,5}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** Whether a management host is this machine only: a listener there is unreachable from the network. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The management endpoints (docs/operations.md): one plain-HTTP listener per
 * process, apart from the public API, for `herald admin` (status, drain) and
 * Prometheus. Each process looks up its own id; a process without an entry
 * has no management endpoint unless `herald start --management` names one.
 * Every route needs the cluster's management token (tokenHash: its SHA-256,
 * never the token itself, so a leaked config does not hand out the
 * credential); endpoints stay on loopback unless allowRemote says otherwise.
 */
export function compileManagement(options: HeraldOptions): ManagementConfig {
  const management = section(options, 'management', [
    'endpoints',
    'drainTimeoutMs',
    'faults',
    'tokenHash',
    'allowRemote',
    'tokenFile',
  ]);
  const endpoints: Record<string, string> = {};
  const raw = management.endpoints ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError('management.endpoints', 'must be an object of process id -> "host:port"');
  const taken = new Map<string, string>();
  for (const [id, address] of Object.entries(raw)) {
    const path = `management.endpoints.${id}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError(path, 'the process id must be letters, digits, _ . -');
    if (typeof address !== 'string' || !HOST_PORT.test(address) || Number(address.split(':')[1]) > 65535)
      throw new ConfigError(path, `must be "host:port" (got ${JSON.stringify(address)})`);
    if (!isLoopbackHost(address.split(':')[0]!) && management.allowRemote !== true)
      throw new ConfigError(
        path,
        `listens beyond loopback (${address}): set management.allowRemote to true to allow it`,
      );
    const other = taken.get(address);
    if (other !== undefined) throw new ConfigError(path, `repeats the address of ${other}`);
    taken.set(address, id);
    endpoints[id] = address;
  }
  if (management.faults !== undefined && typeof management.faults !== 'boolean')
    throw new ConfigError('management.faults', `must be true or false (got ${JSON.stringify(management.faults)})`);
  if (management.allowRemote !== undefined && typeof management.allowRemote !== 'boolean')
    throw new ConfigError(
      'management.allowRemote',
      `must be true or false (got ${JSON.stringify(management.allowRemote)})`,
    );
  if (management.tokenFile !== undefined && (typeof management.tokenFile !== 'string' || management.tokenFile === ''))
    throw new ConfigError('management.tokenFile', 'must be the path of a file holding the management token');
  return {
    endpoints,
    tokenHash: tokenHash(management.tokenHash),
    tokenFile: management.tokenFile ?? null,
    allowRemote: management.allowRemote ?? false,
    drainTimeoutMs: int(
      'management.drainTimeoutMs',
      management.drainTimeoutMs,
      DEFAULTS.management.drainTimeoutMs,
      0,
      3_600_000,
    ),
    faults: management.faults ?? false,
  };
}

/** The token's hash, lowercase; the value itself is never echoed (a token pasted here by mistake must not reach a log). */
function tokenHash(raw: unknown): string | null {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !SHA256_HEX.test(raw))
    throw new ConfigError(
      'management.tokenHash',
      'must be the SHA-256 of the management token as 64 hex digits (herald admin credential prints it)',
    );
  return raw.toLowerCase();
}
