/**
 * The shapes of the route table (operations.ts, account-operations.ts) and the
 * phrases its entries share.
 */
import type { JsonSchema } from './schema-builders';

export const TAGS = [
  {
    name: 'lists',
    description:
      'Recipient lists and blacklists: binary files or text/CSV, validated while they stream to disk (docs/recipient-list-format.md).',
  },
  { name: 'tasks', description: 'Broadcast tasks: create, read, list, cancel, pause, resume.' },
  { name: 'campaigns', description: 'Cron campaigns: a task created at every fire time (docs/campaigns.md).' },
  {
    name: 'accounts',
    description:
      "B-side controls: an account's daily quotas and frequency, scaled by its last click-through rate (docs/account-quotas.md).",
  },
  {
    name: 'audiences',
    description:
      'Lists built from a source instead of an upload (followers, a targeting query, a table), as jobs with progress; and the admin feeds of followers and user attributes (docs/audience-sources.md).',
  },
  {
    name: 'devices',
    description:
      'The device tokens the mobile-push channels (FCM, APNs) send to, per user (docs/delivery.md, "Device registry").',
  },
  { name: 'cluster', description: "The cluster's members as this interface process sees them." },
  { name: 'access', description: 'API tokens, the caller, the audit log (docs/api.md, "Authentication").' },
  { name: 'health', description: 'Liveness for probes and load balancers.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/** Who may call a route: anyone, any valid token (operators on their accounts only), or admin tokens. */
export type Access = 'public' | 'token' | 'admin';

export interface OperationDoc {
  tag: Tag;
  summary: string;
  description?: string;
  access: Access;
  /** Success answers by status: a JSON Schema, or null for an empty body. */
  responses: Record<number, { description: string; schema: JsonSchema | null }>;
  /** Error answers this route gives besides the ones every route may (401, 429, 500, 503), by status: which codes and when. */
  errors?: Record<number, string>;
  /** Path parameters, for a route that checks them in its handler instead of a schema. */
  params?: Record<string, JsonSchema>;
  /** Request headers the route reads. */
  headers?: Record<string, JsonSchema>;
  /** A request body that is not JSON, by content type. */
  rawBody?: { description: string; contentTypes: string[] };
}

export const TASK_ID = { type: 'string', pattern: '^[1-9][0-9]{0,15}$', description: 'task id' };
export const ACCOUNT_404 =
  'ACCOUNT_NOT_FOUND: an account the token does not name (the same for every such account, existing or not)';
export const LIST_ERRORS = {
  400: 'VALIDATION_FAILED (no body, over http.uploadLimitBytes), LIST_BAD_MAGIC, LIST_UNSUPPORTED_VERSION, LIST_BAD_HEADER, LIST_TRUNCATED, LIST_TRAILING_BYTES, LIST_CHECKSUM_MISMATCH, LIST_UIN_OUT_OF_RANGE',
  422: 'LIST_EMPTY; LIST_TOO_MANY_BAD_LINES (text/CSV)',
};
export const campaign404 = 'CAMPAIGN_NOT_FOUND: no such campaign, or one of an account the token does not name';
export const task404 = 'TASK_NOT_FOUND: no such task, or one of an account the token does not name';

export const json = (description: string, schema: JsonSchema) => ({ description, schema });
export const QUERY_VALID: JsonSchema = {
  type: 'object',
  required: ['valid'],
  additionalProperties: false,
  properties: { valid: { type: 'boolean', enum: [true] } },
};
