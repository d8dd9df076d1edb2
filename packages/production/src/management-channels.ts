import type { IncomingMessage } from 'node:http';
import { isHeraldError } from '@herald/core';
import type { ChannelLimitsControl } from '@herald/executor';
import { readJsonBody, type Refusal } from './management-guard';

const LIMIT_FIELDS = new Set(['channel', 'minRate', 'maxRate']);

/**
 * An executor's paced channels on its management endpoint (docs/delivery.md,
 * "Limits at run time"): the production profile's way to change a channel's
 * limits without a restart, since its interface processes run no channel.
 *
 *   GET  /channels          {channels: [{channel, minRate, maxRate, rate, senders}]}
 *   POST /channels/limits   {"channel": "webhook", "maxRate": 20000} (and/or minRate): the channel as listed
 */
export function channelRoutes(
  channels: ChannelLimitsControl | undefined,
): Record<string, (req: IncomingMessage) => Promise<[number, unknown]>> {
  return {
    'GET /channels': async () => [200, { channels: channels?.list() ?? [] }],
    'POST /channels/limits': async (req) => {
      const body = await readJsonBody(req);
      if (!body.ok) return body.refusal;
      const checked = checkLimitsBody(body.value);
      if ('refusal' in checked) return checked.refusal;
      const { channel, ...limits } = checked;
      try {
        const changed = channels?.setLimits(channel, limits);
        if (changed === undefined)
          return [404, { code: 'NOT_FOUND', message: `no paced delivery channel named ${channel} in this process` }];
        return [200, changed];
      } catch (error) {
        if (!isHeraldError(error) || error.code !== 'VALIDATION_FAILED') throw error;
        return [400, { code: 'VALIDATION_FAILED', message: error.message, details: error.details }];
      }
    },
  };
}

/** `{channel, minRate?, maxRate?}`: a channel name, at least one bound, each a positive integer, nothing else. */
function checkLimitsBody(
  value: unknown,
): { channel: string; minRate?: number; maxRate?: number } | { refusal: Refusal } {
  const bad = (field: string, message: string): { refusal: Refusal } => ({
    refusal: [400, { code: 'VALIDATION_FAILED', message, details: { field } } as Refusal[1]],
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return bad('body', 'body must be {"channel": "<name>", "minRate"?: n, "maxRate"?: n}');
  const body = value as Record<string, unknown>;
  for (const field of Object.keys(body)) if (!LIMIT_FIELDS.has(field)) return bad(field, `unknown field ${field}`);
  if (typeof body['channel'] !== 'string' || body['channel'] === '')
    return bad('channel', 'channel must be the name of a channel (e.g. "webhook")');
  const limits: { minRate?: number; maxRate?: number } = {};
  for (const field of ['minRate', 'maxRate'] as const) {
    const bound = body[field];
    if (bound === undefined) continue;
    if (!(typeof bound === 'number' && Number.isInteger(bound) && bound >= 1))
      return bad(field, `${field} must be a whole number of recipients per second, at least 1`);
    limits[field] = bound;
  }
  if (Object.keys(limits).length === 0) return bad('maxRate', 'give minRate, maxRate or both');
  return { channel: body['channel'], ...limits };
}
