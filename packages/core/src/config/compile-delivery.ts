import { ConfigError } from '../errors';
import { DEFAULTS, type DeliveryConfig, type HeraldOptions } from './options';
import { section } from './section';
import { checkKnownKeys, int } from './validate';

/** A header name as HTTP allows it (a token), so a typo fails at start instead of on every request. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/** Where executors push deliveries (docs/delivery.md): the file sink, or a webhook. */
export function compileDelivery(options: HeraldOptions): DeliveryConfig {
  const delivery = section(options, 'delivery', ['kind', 'webhook']);
  const kind = delivery.kind ?? 'file';
  if (kind !== 'file' && kind !== 'webhook')
    throw new ConfigError('delivery.kind', `must be 'file' or 'webhook' (got ${JSON.stringify(kind)})`);
  if (kind === 'file') {
    if (delivery.webhook !== undefined)
      throw new ConfigError('delivery.webhook', "is only read with delivery.kind 'webhook'");
    return { kind };
  }
  const webhook = delivery.webhook ?? {};
  if (webhook === null || typeof webhook !== 'object' || Array.isArray(webhook))
    throw new ConfigError('delivery.webhook', 'must be an object');
  checkKnownKeys('delivery.webhook', webhook, ['url', 'timeoutMs', 'maxAttempts', 'retryDelayMs', 'headers']);
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
    },
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
