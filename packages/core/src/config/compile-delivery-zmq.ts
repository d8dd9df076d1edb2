import { ConfigError } from '../errors';
import { DEFAULTS, type ZmqDeliveryConfig } from './options';
import { checkKnownKeys, int } from './validate';

/** The settings of `delivery.zmq`. */
export const ZMQ_DELIVERY_KEYS = [
  'endpoint',
  'curve',
  'serverPublicKeyFile',
  'keyPairFile',
  'timeoutMs',
  'maxInFlight',
  'maxAttempts',
  'retryDelayMs',
  'pacing',
] as const;

/** tcp://host:port a ZeroMQ client can connect to: a host and a port number (no wildcard). */
const TCP_ENDPOINT = /^tcp:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/**
 * `delivery.zmq` less its pacing (compile-delivery.ts adds it, as for the
 * other channels). The endpoint is checked as ZeroMQ would connect to it, so
 * a typo fails at start; CURVE is on unless `curve: false`, and then the
 * service's public key file is required (the files themselves are read when
 * the executor opens the channel). Every bad value is a ConfigError naming
 * its setting.
 */
export function compileZmqDelivery(value: unknown): Omit<ZmqDeliveryConfig, 'pacing'> {
  const path = 'delivery.zmq';
  if (value === undefined) throw new ConfigError(`${path}.endpoint`, "is required with delivery.kind 'zmq'");
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, value, [...ZMQ_DELIVERY_KEYS]);
  const zmq = value as Partial<Record<(typeof ZMQ_DELIVERY_KEYS)[number], unknown>>;
  const curve = zmq.curve ?? true;
  if (typeof curve !== 'boolean') throw new ConfigError(`${path}.curve`, 'must be true or false');
  const endpoint = checkZmqEndpoint(zmq.endpoint, curve, `${path}.endpoint`);
  const file = (key: 'serverPublicKeyFile' | 'keyPairFile'): string | null => {
    const given = zmq[key];
    if (given === undefined) return null;
    if (!curve) throw new ConfigError(`${path}.${key}`, 'is only read with CURVE on (delivery.zmq.curve true)');
    if (typeof given !== 'string' || given.trim() === '')
      throw new ConfigError(`${path}.${key}`, `must be a file path (got ${JSON.stringify(given)})`);
    return given;
  };
  const serverPublicKeyFile = file('serverPublicKeyFile');
  if (curve && serverPublicKeyFile === null)
    throw new ConfigError(
      `${path}.serverPublicKeyFile`,
      "is required with CURVE on (the push service's public key); set delivery.zmq.curve false only for local tests",
    );
  const d = DEFAULTS.delivery.zmq;
  return {
    endpoint,
    curve,
    serverPublicKeyFile,
    keyPairFile: file('keyPairFile'),
    timeoutMs: int(`${path}.timeoutMs`, zmq.timeoutMs, d.timeoutMs, 100, 600_000),
    maxInFlight: int(`${path}.maxInFlight`, zmq.maxInFlight, d.maxInFlight, 1, 100_000),
    maxAttempts: int(`${path}.maxAttempts`, zmq.maxAttempts, d.maxAttempts, 1, 100),
    retryDelayMs: int(`${path}.retryDelayMs`, zmq.retryDelayMs, d.retryDelayMs, 0, 60_000),
  };
}

/** tcp://host:port or ipc://path; inproc://name only without CURVE (inproc skips the security handshake). */
function checkZmqEndpoint(value: unknown, curve: boolean, setting: string): string {
  const shape = 'tcp://host:port or ipc://path';
  if (typeof value !== 'string') throw new ConfigError(setting, `must be ${shape} (got ${JSON.stringify(value)})`);
  const tcp = TCP_ENDPOINT.exec(value);
  if (tcp !== null) {
    const port = Number(tcp[2]);
    if (port < 1 || port > 65_535) throw new ConfigError(setting, `has port ${port}, outside 1..65535`);
    return value;
  }
  if (/^ipc:\/\/.+/.test(value)) return value;
  if (/^inproc:\/\/.+/.test(value)) {
    if (curve)
      throw new ConfigError(
        setting,
        `CURVE needs tcp:// or ipc:// (got ${value}); inproc:// skips the security handshake`,
      );
    return value;
  }
  throw new ConfigError(setting, `must be ${shape} (got ${JSON.stringify(value)})`);
}
