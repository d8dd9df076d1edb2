import { ConfigError } from '../errors';
import { compileKafkaDelivery } from './compile-delivery-kafka';
import { compileZmqDelivery } from './compile-delivery-zmq';
import { compileApnsDelivery, compileFcmDelivery } from './compile-delivery-push';
import { DEFAULTS, type ChannelPacingConfig, type DeliveryConfig, type HeraldOptions } from './options';
import { section } from './section';
import { checkKnownKeys, int } from './validate';

/** A header name as HTTP allows it (a token), so a typo fails at start instead of on every request. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/** The channels a `delivery.kind` names. */
const KINDS = ['file', 'webhook', 'kafka', 'zmq', 'fcm', 'apns'] as const;

/** Where executors push deliveries (docs/delivery.md): the file sink, a webhook, a Kafka topic, a ZeroMQ push gateway, or FCM / APNs. */
export function compileDelivery(options: HeraldOptions): DeliveryConfig {
  const delivery = section(options, 'delivery', ['kind', 'webhook', 'kafka', 'zmq', 'fcm', 'apns']);
  const kind = delivery.kind ?? 'file';
  if (!(KINDS as readonly unknown[]).includes(kind))
    throw new ConfigError(
      'delivery.kind',
      `must be 'file', 'webhook', 'kafka', 'zmq', 'fcm' or 'apns' (got ${JSON.stringify(kind)})`,
    );
  for (const channel of ['webhook', 'kafka', 'zmq', 'fcm', 'apns'] as const)
    if (channel !== kind && delivery[channel] !== undefined)
      throw new ConfigError(`delivery.${channel}`, `is only read with delivery.kind '${channel}'`);
  if (kind === 'file') return { kind };
  if (kind === 'kafka') {
    const kafka = compileKafkaDelivery(delivery.kafka);
    const pacing = compilePacing('delivery.kafka.pacing', (delivery.kafka as { pacing?: unknown }).pacing);
    return { kind, kafka: { ...kafka, pacing } };
  }
  if (kind === 'zmq') {
    const zmq = compileZmqDelivery(delivery.zmq);
    const pacing = compilePacing('delivery.zmq.pacing', (delivery.zmq as { pacing?: unknown }).pacing);
    return { kind, zmq: { ...zmq, pacing } };
  }
  if (kind === 'fcm') {
    const fcm = compileFcmDelivery(delivery.fcm);
    return { kind, fcm: { ...fcm, pacing: compilePacing('delivery.fcm.pacing', delivery.fcm?.pacing) } };
  }
  if (kind === 'apns') {
    const apns = compileApnsDelivery(delivery.apns);
    return { kind, apns: { ...apns, pacing: compilePacing('delivery.apns.pacing', delivery.apns?.pacing) } };
  }
  const webhook = delivery.webhook ?? {};
  if (webhook === null || typeof webhook !== 'object' || Array.isArray(webhook))
    throw new ConfigError('delivery.webhook', 'must be an object');
  checkKnownKeys('delivery.webhook', webhook, ['url', 'timeoutMs', 'maxAttempts', 'retryDelayMs', 'headers', 'pacing']);
  const url = webhook.url;
  if (typeof url !== 'string' || !isHttpUrl(url))
    throw new ConfigError('delivery.webhook.url', `must be an http:// or https:// URL (got ${JSON.stringify(url)})`);
  const headers = webhook.headers ?? {};
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
    throw new ConfigError('delivery.webhook.headers', 'must be an object of header name -> value');
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw new ConfigError(`delivery.webhook.headers.${name}`, 'is not a valid header name');
    if (typeof value !== 'string' || /[\r\n\0]/.test(value))
      throw new ConfigError(`delivery.webhook.headers.${name}`, 'must be a string without line breaks');
  }
  const d = DEFAULTS.delivery.webhook;
  return {
    kind,
    webhook: {
      url,
      timeoutMs: int('delivery.webhook.timeoutMs', webhook.timeoutMs, d.timeoutMs, 100, 600_000),
      maxAttempts: int('delivery.webhook.maxAttempts', webhook.maxAttempts, d.maxAttempts, 1, 100),
      retryDelayMs: int('delivery.webhook.retryDelayMs', webhook.retryDelayMs, d.retryDelayMs, 0, 60_000),
      headers: { ...headers },
      pacing: compilePacing('delivery.webhook.pacing', webhook.pacing),
    },
  };
}

/** A channel's pacing: every field optional, each checked in its range, the rates in order. */
function compilePacing(path: string, value: unknown): ChannelPacingConfig {
  const given = value ?? {};
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    throw new ConfigError(path, 'must be an object');
  const d = DEFAULTS.delivery.webhook.pacing;
  checkKnownKeys(path, given, Object.keys(d));
  const p = given as Partial<Record<keyof ChannelPacingConfig, unknown>>;
  const rate = (key: 'initialRate' | 'minRate' | 'maxRate' | 'increasePerSecond', min: number) =>
    int(`${path}.${key}`, p[key], d[key], min, 100_000_000);
  const ms = (key: 'burstMs' | 'cutSpacingMs' | 'throttleDelayMs' | 'latencyFloorMs', min: number) =>
    int(`${path}.${key}`, p[key], d[key], min, 600_000);
  const pacing: ChannelPacingConfig = {
    minRate: rate('minRate', 1),
    maxRate: rate('maxRate', 1),
    initialRate: rate('initialRate', 1),
    increasePerSecond: rate('increasePerSecond', 0),
    decreaseFactor: between(`${path}.decreaseFactor`, p.decreaseFactor, d.decreaseFactor, 0.05, 0.95),
    burstMs: ms('burstMs', 0),
    cutSpacingMs: ms('cutSpacingMs', 0),
    throttleDelayMs: ms('throttleDelayMs', 0),
    latencyFloorMs: ms('latencyFloorMs', 0),
    latencyRiseFactor: between(`${path}.latencyRiseFactor`, p.latencyRiseFactor, d.latencyRiseFactor, 1.1, 100),
    breakerOpenMs: int(`${path}.breakerOpenMs`, p.breakerOpenMs, d.breakerOpenMs, 10, 3_600_000),
    maxHoldMs: int(`${path}.maxHoldMs`, p.maxHoldMs, d.maxHoldMs, 10, 3_600_000),
  };
  // Without its own initialRate, a channel given limits starts at the default inside them.
  if (p.initialRate === undefined)
    pacing.initialRate = Math.min(pacing.maxRate, Math.max(pacing.minRate, pacing.initialRate));
  if (pacing.minRate > pacing.maxRate)
    throw new ConfigError(`${path}.minRate`, `must be at most maxRate (${pacing.maxRate}) (got ${pacing.minRate})`);
  if (pacing.initialRate < pacing.minRate || pacing.initialRate > pacing.maxRate)
    throw new ConfigError(
      `${path}.initialRate`,
      `must be within [minRate, maxRate] = [${pacing.minRate}, ${pacing.maxRate}] (got ${pacing.initialRate})`,
    );
  return pacing;
}

/** A number (not only an integer) in [min, max]. */
function between(path: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new ConfigError(path, `must be a number in [${min}, ${max}] (got ${JSON.stringify(value)})`);
  return value;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
