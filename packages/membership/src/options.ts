import { ConfigError } from '@herald/core';
import { compileAptaConfig, type AptaConfig, type AptaOptions } from '@herald/core/apta';
import { intSetting } from '@herald/core/config';
import { systemClock, type Clock, type Logger, type Meter } from '@herald/core/ports';
import { checkCurveKey } from '@herald/transport';

/** Another member of the cluster, as this process reaches it. */
export interface MembershipPeer {
  /** Its process id. */
  id: string;
  /** The endpoint its membership PULL binds, e.g. 'tcp://10.0.0.6:7201'. */
  endpoint: string;
  /** Its CURVE public key (Z85): the server key this process's PUSH checks. Required when `curve` is set. */
  serverPublicKey?: string;
}

/**
 * CURVE for the membership links, as plain keys (production reads them from
 * `herald keys` files: `<id>.key` for the pair, every peer's `<id>.pub`).
 */
export interface MembershipCurveOptions {
  /** This process's pair: its PULL serves with it, and its PUSHes present it as their client key. */
  publicKey: string;
  secretKey: string;
  /**
   * Client public keys the PULL admits.
   * @defaultValue every peer's `serverPublicKey` (one pair per process, as `herald keys` writes them)
   */
  allowedClientKeys?: string[];
}

/** Timers the runtime arms; injected so a test can drive time. */
export interface MembershipTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What `startMembership` takes: step one of three (options -> defaults -> compiled). */
export interface MembershipOptions {
  /** This process's id: 1-64 letters, digits, _ . - (the same id as its keys and its other links). */
  id: string;
  /**
   * Whether this process owns tasks: true for schedulers, false for interface
   * processes, which follow the membership and the ring without being on it.
   * @defaultValue true
   */
  takesWork?: boolean;
  /** The endpoint this process binds for membership traffic (a PULL), e.g. 'tcp://10.0.0.5:7201'. */
  endpoint: string;
  /** Every other member of the cluster, schedulers and interfaces. Messages from anyone else are dropped. */
  peers: MembershipPeer[];
  /** Encrypt and authenticate every link (tcp:// or ipc:// only). @defaultValue none (NULL security) */
  curve?: MembershipCurveOptions;
  /** APTA timers (core's compileAptaConfig; a compiled AptaConfig is accepted as is). @defaultValue core's defaults */
  apta?: AptaOptions;
  /** Must rise across restarts of the same id. @defaultValue the clock's now at start */
  incarnation?: number;
  /** Messages zeromq queues per peer (ZMQ_SNDHWM) before sends to it are dropped. @defaultValue 16 */
  sendHighWaterMark?: number;
  /** Messages queued on the PULL (ZMQ_RCVHWM). @defaultValue 1000 */
  receiveHighWaterMark?: number;
  /**
   * Sends per peer handed to the channel but not yet taken by zeromq; beyond
   * this the peer's queue is full (it is down or slow) and further messages to
   * it are dropped, so the loop never waits. @defaultValue 8
   */
  maxInFlight?: number;
  /** @defaultValue core's systemClock (Date.now) */
  clock?: Clock;
  /** @defaultValue Node's setTimeout / clearTimeout */
  timers?: MembershipTimers;
  /** @defaultValue core's noopLogger */
  logger?: Logger;
  /** @defaultValue core's noopMeter */
  meter?: Meter;
}

/** Step three: checked, every default filled in. */
export interface MembershipConfig {
  id: string;
  takesWork: boolean;
  endpoint: string;
  peers: MembershipPeer[];
  curve: Required<MembershipCurveOptions> | undefined;
  apta: AptaConfig;
  incarnation: number | undefined;
  sendHighWaterMark: number;
  receiveHighWaterMark: number;
  maxInFlight: number;
  clock: Clock;
  timers: MembershipTimers;
}

export const MEMBERSHIP_DEFAULTS = { sendHighWaterMark: 16, receiveHighWaterMark: 1000, maxInFlight: 8 } as const;

/** Process ids as core's APTA module accepts them. */
const PROCESS_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const KNOWN = [
  'id',
  'takesWork',
  'endpoint',
  'peers',
  'curve',
  'apta',
  'incarnation',
  'sendHighWaterMark',
  'receiveHighWaterMark',
  'maxInFlight',
  'clock',
  'timers',
  'logger',
  'meter',
];

export const nodeTimers: MembershipTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Fills the defaults and checks everything that can be checked before a
 * socket opens. Throws ConfigError naming `membership.<setting>`.
 */
export function compileMembershipOptions(options: MembershipOptions, path = 'membership'): MembershipConfig {
  if (options === null || typeof options !== 'object') throw new ConfigError(path, 'must be an object');
  for (const key of Object.keys(options))
    if (!KNOWN.includes(key))
      throw new ConfigError(`${path}.${key}`, `is not a known setting (known: ${KNOWN.join(', ')})`);
  const id = processId(`${path}.id`, options.id);
  const endpoint = nonEmpty(`${path}.endpoint`, options.endpoint);
  const takesWork = options.takesWork ?? true;
  if (typeof takesWork !== 'boolean') throw new ConfigError(`${path}.takesWork`, 'must be a boolean');
  if (!Array.isArray(options.peers))
    throw new ConfigError(`${path}.peers`, 'must be a list of { id, endpoint, serverPublicKey? }');
  const ids = new Set<string>([id]);
  const endpoints = new Set<string>([endpoint]);
  const peers = options.peers.map((peer, i): MembershipPeer => {
    const at = `${path}.peers[${i}]`;
    if (peer === null || typeof peer !== 'object')
      throw new ConfigError(at, 'must be { id, endpoint, serverPublicKey? }');
    const peerId = processId(`${at}.id`, peer.id);
    if (ids.has(peerId))
      throw new ConfigError(`${at}.id`, peerId === id ? 'is this process itself' : `${peerId} is listed twice`);
    ids.add(peerId);
    const peerEndpoint = nonEmpty(`${at}.endpoint`, peer.endpoint);
    if (endpoints.has(peerEndpoint)) throw new ConfigError(`${at}.endpoint`, `${peerEndpoint} is used twice`);
    endpoints.add(peerEndpoint);
    if (options.curve === undefined) return { id: peerId, endpoint: peerEndpoint };
    if (peer.serverPublicKey === undefined) throw new ConfigError(`${at}.serverPublicKey`, 'is required with curve');
    return {
      id: peerId,
      endpoint: peerEndpoint,
      serverPublicKey: checkCurveKey(`${at}.serverPublicKey`, peer.serverPublicKey),
    };
  });
  let curve: Required<MembershipCurveOptions> | undefined;
  if (options.curve !== undefined) {
    const c = options.curve;
    if (c === null || typeof c !== 'object')
      throw new ConfigError(`${path}.curve`, 'must be { publicKey, secretKey, allowedClientKeys? }');
    const allowed = c.allowedClientKeys ?? peers.map((p) => p.serverPublicKey!);
    if (!Array.isArray(allowed))
      throw new ConfigError(`${path}.curve.allowedClientKeys`, 'must be a list of Z85 public keys');
    curve = {
      publicKey: checkCurveKey(`${path}.curve.publicKey`, c.publicKey),
      secretKey: checkCurveKey(`${path}.curve.secretKey`, c.secretKey),
      allowedClientKeys: allowed.map((key, i) => checkCurveKey(`${path}.curve.allowedClientKeys[${i}]`, key)),
    };
  }
  const { incarnation } = options;
  if (incarnation !== undefined && (!Number.isSafeInteger(incarnation) || incarnation < 0)) {
    throw new ConfigError(`${path}.incarnation`, `must be a non-negative integer (got ${JSON.stringify(incarnation)})`);
  }
  return {
    id,
    takesWork,
    endpoint,
    peers,
    curve,
    apta: compileAptaConfig(options.apta ?? {}, `${path}.apta`),
    incarnation,
    sendHighWaterMark: intSetting(
      `${path}.sendHighWaterMark`,
      options.sendHighWaterMark,
      MEMBERSHIP_DEFAULTS.sendHighWaterMark,
      1,
      1_000_000,
    ),
    receiveHighWaterMark: intSetting(
      `${path}.receiveHighWaterMark`,
      options.receiveHighWaterMark,
      MEMBERSHIP_DEFAULTS.receiveHighWaterMark,
      1,
      1_000_000,
    ),
    maxInFlight: intSetting(`${path}.maxInFlight`, options.maxInFlight, MEMBERSHIP_DEFAULTS.maxInFlight, 1, 10_000),
    clock: options.clock ?? systemClock,
    timers: options.timers ?? nodeTimers,
  };
}

function processId(setting: string, value: unknown): string {
  if (typeof value !== 'string' || !PROCESS_ID.test(value))
    throw new ConfigError(setting, `must be a process id: 1-64 letters, digits, _ . - (got ${JSON.stringify(value)})`);
  return value;
}

function nonEmpty(setting: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new ConfigError(setting, `must be a non-empty string (got ${JSON.stringify(value)})`);
  return value;
}
