import {
  MAX_CAMPAIGN_NAME_CHARS,
  MAX_CRON_CHARS,
  MAX_TIME_ZONE_CHARS,
  NO_RESEND_SCOPES,
  type NoResend,
} from '@herald/core/campaign';
import type { PriorityClass } from '@herald/core/task';
import type { DeliverAtRequest } from '@herald/core/time';
import type { QuietHoursRequest } from '@herald/core/campaign';
import { DATE_TIME_FIELD } from './date-field';
import type { RequestContent } from './request-content';
import { SEARCH_FIELD } from './search-field';

/**
 * The request shapes of the campaign routes (routes/campaigns.ts): bodies,
 * parameters and query strings as JSON schemas fastify checks, unknown
 * fields refused.
 */
export interface TemplateBody {
  listId: string;
  content: RequestContent;
  priority?: PriorityClass;
  ttlSeconds?: number;
  targeting?: string;
  noResend?: NoResend;
  deliverAt?: DeliverAtRequest;
  quietHours?: QuietHoursRequest;
  collapseKey?: string;
  canary?: unknown;
  variants?: unknown;
  holdout?: unknown;
}

export interface CreateCampaignBody {
  accountId: string;
  name: string;
  cron: string;
  timeZone: string;
  enabled?: boolean;
  template: TemplateBody;
}

export type PatchCampaignBody = Partial<Omit<CreateCampaignBody, 'accountId'>>;

const templateSchema = {
  type: 'object',
  required: ['listId', 'content'],
  additionalProperties: false,
  properties: {
    listId: { type: 'string', minLength: 1, maxLength: 128 },
    content: {
      type: 'object',
      required: ['body'],
      additionalProperties: false,
      properties: {
        body: { type: 'string', minLength: 1 },
        title: { type: 'string', maxLength: 256 },
        template: { type: 'boolean' },
      },
    },
    priority: { type: 'string', enum: ['realtime', 'normal'] },
    ttlSeconds: { type: 'integer', minimum: 1 },
    // Each firing's task is targeted (docs/campaigns.md); the store's checkTemplate parses it.
    targeting: { type: 'string' },
    // What counts as already sent for a firing (docs/campaigns.md, "No-resend scope"); the window is core's to parse.
    noResend: {
      type: 'object',
      required: ['scope'],
      additionalProperties: false,
      properties: {
        scope: { type: 'string', enum: [...NO_RESEND_SCOPES] },
        window: { type: 'string', minLength: 1, maxLength: 16 },
      },
    },
    // Each firing's local time and quiet hours (docs/local-time.md); core's parsers name the field at fault.
    deliverAt: { type: 'object' },
    quietHours: { description: "'HH:MM-HH:MM' or { hours: 'HH:MM-HH:MM', during: 'hold' | 'offline' }" },
    // Each firing's collapse key, canary and A/B variants (docs/campaigns.md, "Template"): core's parsers, as for a
    // task, name the field at fault under template.
    collapseKey: { type: 'string' },
    canary: { description: 'a canary for each firing, as POST /api/v1/tasks canary' },
    variants: { description: "each firing's A/B variants, as POST /api/v1/tasks variants" },
    holdout: { description: "each firing's A/B holdout, as POST /api/v1/tasks holdout" },
  },
} as const;

const campaignFields = {
  name: { type: 'string', minLength: 1, maxLength: MAX_CAMPAIGN_NAME_CHARS },
  cron: { type: 'string', minLength: 1, maxLength: MAX_CRON_CHARS },
  timeZone: { type: 'string', minLength: 1, maxLength: MAX_TIME_ZONE_CHARS },
  enabled: { type: 'boolean' },
  template: templateSchema,
} as const;

export const createSchema = {
  type: 'object',
  required: ['accountId', 'name', 'cron', 'timeZone', 'template'],
  additionalProperties: false,
  properties: { accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' }, ...campaignFields },
} as const;

export const patchSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: campaignFields,
} as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
} as const;

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' },
    enabled: { type: 'boolean' },
    q: SEARCH_FIELD,
    cursor: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const;

export const firingsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { cursor: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
} as const;

export const previewQuery = {
  type: 'object',
  required: ['cron', 'timeZone'],
  additionalProperties: false,
  properties: {
    cron: { type: 'string', maxLength: MAX_CRON_CHARS },
    timeZone: { type: 'string', maxLength: MAX_TIME_ZONE_CHARS },
    after: DATE_TIME_FIELD,
  },
} as const;
