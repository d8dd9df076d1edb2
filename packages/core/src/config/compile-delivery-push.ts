import { ConfigError } from '../errors';
import { DEFAULTS, type ApnsDeliveryConfig, type FcmDeliveryConfig, type PushChannelConfig } from './options';
import { checkKnownKeys, int } from './validate';

/*
 * `delivery.fcm` and `delivery.apns` (docs/delivery.md, "FCM and APNs"):
 * checked here, pure; the key files they name are read at start by the
 * production profile, which names the setting when one is missing,
 * unreadable or not a key.
 */

const SHARED_KEYS = ['endpoint', 'caFile', 'concurrency', 'timeoutMs', 'maxAttempts', 'retryDelayMs', 'pacing'];
/** Apple's Key ID and Team ID: 10 upper-case letters and digits. */
const APPLE_ID = /^[A-Z0-9]{10}$/;
/** A bundle id (apns-topic), with the suffixes Apple adds for VoIP and complications. */
const BUNDLE_ID = /^[A-Za-z0-9.-]{1,155}$/;

type Settings = Record<string, unknown>;

function objectAt(path: string, value: unknown, required: string): Settings {
  if (value === undefined)
    throw new ConfigError(`${path}.${required}`, `is required with delivery.kind '${path.split('.')[1]}'`);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  return value as Settings;
}

function text(path: string, value: unknown, pattern?: RegExp, says?: string): string {
  if (typeof value !== 'string' || value.trim() === '' || (pattern !== undefined && !pattern.test(value)))
    throw new ConfigError(path, `must be ${says ?? 'a non-empty string'} (got ${JSON.stringify(value)})`);
  return value;
}

function httpsOrigin(path: string, value: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {
    url = undefined;
  }
  if (typeof value !== 'string' || url === undefined || url.protocol !== 'https:')
    throw new ConfigError(
      path,
      `must be an https:// URL: FCM and APNs speak HTTP/2 over TLS only (got ${JSON.stringify(value)})`,
    );
  return value;
}

/** The settings both channels share, less pacing (compile-delivery.ts adds it). */
function compileShared(
  path: string,
  settings: Settings,
  defaults: (typeof DEFAULTS.delivery)['fcm' | 'apns'],
): Omit<PushChannelConfig, 'pacing'> {
  const caFile = settings.caFile === undefined ? null : text(`${path}.caFile`, settings.caFile);
  return {
    endpoint: httpsOrigin(`${path}.endpoint`, settings.endpoint ?? defaults.endpoint),
    caFile,
    concurrency: int(`${path}.concurrency`, settings.concurrency, defaults.concurrency, 1, 1000),
    timeoutMs: int(`${path}.timeoutMs`, settings.timeoutMs, defaults.timeoutMs, 100, 600_000),
    maxAttempts: int(`${path}.maxAttempts`, settings.maxAttempts, defaults.maxAttempts, 1, 100),
    retryDelayMs: int(`${path}.retryDelayMs`, settings.retryDelayMs, defaults.retryDelayMs, 0, 60_000),
  };
}

export function compileFcmDelivery(value: unknown): Omit<FcmDeliveryConfig, 'pacing'> {
  const path = 'delivery.fcm';
  const fcm = objectAt(path, value, 'credentialsFile');
  checkKnownKeys(path, fcm, [...SHARED_KEYS, 'credentialsFile', 'projectId', 'tokenUrl']);
  if (fcm.credentialsFile === undefined)
    throw new ConfigError(`${path}.credentialsFile`, "is required with delivery.kind 'fcm'");
  const d = DEFAULTS.delivery.fcm;
  return {
    ...compileShared(path, fcm, d),
    credentialsFile: text(`${path}.credentialsFile`, fcm.credentialsFile),
    projectId:
      fcm.projectId === undefined
        ? null
        : text(`${path}.projectId`, fcm.projectId, /^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, 'a Firebase project id'),
    tokenUrl: httpsOrigin(`${path}.tokenUrl`, fcm.tokenUrl ?? d.tokenUrl),
  };
}

export function compileApnsDelivery(value: unknown): Omit<ApnsDeliveryConfig, 'pacing'> {
  const path = 'delivery.apns';
  const apns = objectAt(path, value, 'keyFile');
  checkKnownKeys(path, apns, [...SHARED_KEYS, 'keyFile', 'keyId', 'teamId', 'topic', 'pushType']);
  for (const required of ['keyFile', 'keyId', 'teamId', 'topic'])
    if (apns[required] === undefined)
      throw new ConfigError(`${path}.${required}`, "is required with delivery.kind 'apns'");
  const d = DEFAULTS.delivery.apns;
  const pushType = apns.pushType ?? d.pushType;
  if (pushType !== 'alert' && pushType !== 'background')
    throw new ConfigError(`${path}.pushType`, `must be 'alert' or 'background' (got ${JSON.stringify(pushType)})`);
  return {
    ...compileShared(path, apns, d),
    keyFile: text(`${path}.keyFile`, apns.keyFile),
    keyId: text(`${path}.keyId`, apns.keyId, APPLE_ID, '10 upper-case letters and digits (the Key ID)'),
    teamId: text(`${path}.teamId`, apns.teamId, APPLE_ID, '10 upper-case letters and digits (the Team ID)'),
    topic: text(`${path}.topic`, apns.topic, BUNDLE_ID, "the app's bundle id"),
    pushType,
  };
}
