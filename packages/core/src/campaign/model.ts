/*
 * Campaigns: a cron expression in a time zone plus a task template; each
 * firing creates one task (docs/campaigns.md). The record types, and the
 * pure record logic every CampaignStore adapter shares: input checks (all
 * ValidationError naming the field), new records, patches, queries.
 */
import { NotFoundError, ValidationError } from '../errors';
import { compileTextSearch, matchesTextSearch, type TextSearch } from '../task/text-search';
import { parseCron } from './cron';
import { checkTimeZone } from './time-zone';
import { checkTemplate, type CampaignTemplate } from './template';

export type { CampaignTemplate, QuietHoursRequest } from './template';
export { checkTemplate } from './template';

export interface NewCampaign {
  accountId: string;
  name: string;
  /** docs/campaigns.md, "Cron syntax". */
  cron: string;
  /** IANA name; stored in its canonical spelling. */
  timeZone: string;
  /** Default true. */
  enabled?: boolean;
  template: CampaignTemplate;
  /**
   * A client's key for this creation (the API's `api:<account>:<header>`):
   * creating again with a key a campaign already holds answers that campaign
   * and stores nothing. Unique per store; 1..255 characters.
   */
  idempotencyKey?: string;
}

export interface Campaign {
  /** Positive, increasing in creation order. */
  id: number;
  accountId: string;
  name: string;
  cron: string;
  timeZone: string;
  enabled: boolean;
  template: CampaignTemplate;
  createdAt: number;
  updatedAt: number;
  /**
   * When the current schedule took effect: creation, and every enabling or
   * change of cron or time zone. Scheduled times at or before it are never
   * fired nor recorded as missed.
   */
  activeFrom: number;
  /** The last scheduled time handled (fired or missed); absent before the first. */
  lastScheduledAt?: number;
  /** The key it was created with (NewCampaign.idempotencyKey); absent when none. */
  idempotencyKey?: string;
}

/** What an update may change; absent fields stay as they are. */
export interface CampaignPatch {
  name?: string;
  cron?: string;
  timeZone?: string;
  enabled?: boolean;
  template?: CampaignTemplate;
}

export type FiringOutcome = 'fired' | 'missed';
export const FIRING_OUTCOMES: readonly FiringOutcome[] = ['fired', 'missed'];

export interface NewCampaignFiring {
  campaignId: number;
  /** The scheduled time (epoch ms): with campaignId, the firing's identity. */
  scheduledAt: number;
  outcome: FiringOutcome;
  /** The task a firing created. */
  taskId?: number;
  /** Why a time was missed: 'late' (beyond the grace), 'list_not_found', ... */
  reason?: string;
  /** When it was handled. */
  at: number;
  /** A run asked for outside the schedule (POST /api/v1/campaigns/:id/run), not a cron time. */
  manual?: boolean;
  /**
   * The Idempotency-Key of the API request that asked for a manual run, as
   * the API scopes it (`api:<accountId>:<header>`): a retry of that request
   * finds this firing (CampaignStore.getFiringByRunKey) instead of firing again.
   */
  runKey?: string;
}

export interface CampaignFiring {
  campaignId: number;
  scheduledAt: number;
  outcome: FiringOutcome;
  taskId: number | null;
  reason: string | null;
  at: number;
  /** Present (true) only on a manual run's record: the schedule's records carry no marker. */
  manual?: true;
  /** Present only on a manual run asked for with an Idempotency-Key (NewCampaignFiring.runKey). */
  runKey?: string;
}

export interface CampaignQuery {
  /** Only campaigns of these accounts (an empty list matches none). */
  accountIds?: readonly string[];
  enabled?: boolean;
  /**
   * Only campaigns whose name or template title or body contains this text,
   * ignoring case; a term of digits also matches the campaign with that id.
   * 1..200 characters. A scanning adapter may answer a short page with a
   * nextCursor once it has read its budget (like TaskQuery.q).
   */
  q?: string;
  /** Keyset cursor: only campaigns with a larger id. */
  afterId?: number;
  /** 1..1000, default 100. */
  limit?: number;
}

export interface CampaignPage {
  campaigns: Campaign[];
  /** Pass as `afterId` for the next page; null on the last page. */
  nextCursor: number | null;
}

export interface FiringQuery {
  /** Keyset cursor: only firings scheduled before this time (newest first). */
  beforeScheduledAt?: number;
  /** 1..1000, default 100. */
  limit?: number;
}

export interface FiringPage {
  firings: CampaignFiring[];
  /** Pass as `beforeScheduledAt` for the next page; null on the last page. */
  nextCursor: number | null;
}

export const CAMPAIGN_QUERY_DEFAULT_LIMIT = 100;
export const CAMPAIGN_QUERY_MAX_LIMIT = 1000;
/** The longest campaign name, in characters. */
export const MAX_CAMPAIGN_NAME_CHARS = 200;
/** The longest id (account, list) and firing reason a store keeps, in characters. */
export const MAX_CAMPAIGN_ID_CHARS = 255;

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field} ${message}`, { field });
};

function checkString(field: string, value: unknown, maxChars: number): string {
  if (typeof value !== 'string' || value === '') return fail(field, 'must be a non-empty string');
  if (value.length > maxChars && [...value].length > maxChars) fail(field, `is longer than ${maxChars} characters`);
  return value;
}

function isTime(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Epoch ms passed to a store (`now`, `at`, `scheduledAt`): a non-negative safe integer. */
export function checkCampaignTime(field: string, value: unknown): number {
  if (!isTime(value)) fail(field, 'must be a non-negative integer number of epoch ms');
  return value as number;
}

export function checkCampaignId(value: unknown, field = 'id'): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1) fail(field, 'must be a positive integer');
  return value as number;
}

function checkCron(value: unknown): string {
  parseCron(value);
  return value as string;
}

/** Checks a NewCampaign and returns the record it becomes, given its id and the time now. */
export function newCampaignRecord(id: number, input: NewCampaign, now: number): Campaign {
  if (input === null || typeof input !== 'object') fail('campaign', 'must be an object');
  checkCampaignTime('now', now);
  const enabled = input.enabled ?? true;
  if (typeof enabled !== 'boolean') fail('enabled', 'must be true or false');
  return {
    id,
    accountId: checkString('accountId', input.accountId, MAX_CAMPAIGN_ID_CHARS),
    name: checkString('name', input.name, MAX_CAMPAIGN_NAME_CHARS),
    cron: checkCron(input.cron),
    timeZone: checkTimeZone(input.timeZone),
    enabled,
    template: checkTemplate(input.template),
    createdAt: now,
    updatedAt: now,
    activeFrom: now,
    ...(input.idempotencyKey === undefined
      ? {}
      : { idempotencyKey: checkString('idempotencyKey', input.idempotencyKey, MAX_CAMPAIGN_ID_CHARS) }),
  };
}

/**
 * The record after `patch`. Enabling a disabled campaign, or changing its
 * cron or time zone, restarts its schedule from `now` (activeFrom): the times
 * it would have fired while disabled, or under the old schedule, are neither
 * fired nor recorded as missed.
 */
export function applyCampaignPatch(campaign: Campaign, patch: CampaignPatch, now: number): Campaign {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) fail('patch', 'must be an object');
  checkCampaignTime('now', now);
  const next: Campaign = { ...campaign, updatedAt: now };
  if (patch.name !== undefined) next.name = checkString('name', patch.name, MAX_CAMPAIGN_NAME_CHARS);
  if (patch.cron !== undefined) next.cron = checkCron(patch.cron);
  if (patch.timeZone !== undefined) next.timeZone = checkTimeZone(patch.timeZone);
  if (patch.enabled !== undefined) {
    if (typeof patch.enabled !== 'boolean') fail('enabled', 'must be true or false');
    next.enabled = patch.enabled;
  }
  if (patch.template !== undefined) next.template = checkTemplate(patch.template);
  const restarted =
    (next.enabled && !campaign.enabled) || next.cron !== campaign.cron || next.timeZone !== campaign.timeZone;
  if (restarted) next.activeFrom = Math.max(now, campaign.activeFrom);
  return next;
}

/** A CampaignQuery with its defaults, validated. */
export interface CompiledCampaignQuery {
  accountIds: readonly string[] | undefined;
  enabled: boolean | undefined;
  /** Undefined: no text search. */
  search: TextSearch | undefined;
  afterId: number;
  limit: number;
}

function checkLimit(limit: unknown): number {
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > CAMPAIGN_QUERY_MAX_LIMIT) {
    fail('limit', `must be an integer in 1..${CAMPAIGN_QUERY_MAX_LIMIT}`);
  }
  return limit as number;
}

export function compileCampaignQuery(query: CampaignQuery = {}): CompiledCampaignQuery {
  if (query === null || typeof query !== 'object') fail('query', 'must be an object');
  const { accountIds, enabled, q, afterId = 0, limit = CAMPAIGN_QUERY_DEFAULT_LIMIT } = query;
  if (accountIds !== undefined) {
    if (!Array.isArray(accountIds)) fail('accountIds', 'must be a list of account ids');
    for (const id of accountIds) checkString('accountIds', id, MAX_CAMPAIGN_ID_CHARS);
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') fail('enabled', 'must be true or false');
  if (!Number.isSafeInteger(afterId) || afterId < 0) fail('afterId', 'must be a non-negative integer');
  return {
    accountIds: accountIds === undefined ? undefined : [...new Set(accountIds)],
    enabled,
    search: compileTextSearch(q),
    afterId,
    limit: checkLimit(limit),
  };
}

export interface CompiledFiringQuery {
  beforeScheduledAt: number | undefined;
  limit: number;
}

export function compileFiringQuery(query: FiringQuery = {}): CompiledFiringQuery {
  if (query === null || typeof query !== 'object') fail('query', 'must be an object');
  const { beforeScheduledAt, limit = CAMPAIGN_QUERY_DEFAULT_LIMIT } = query;
  if (beforeScheduledAt !== undefined) checkCampaignTime('beforeScheduledAt', beforeScheduledAt);
  return { beforeScheduledAt, limit: checkLimit(limit) };
}

/** Checks a NewCampaignFiring and returns the record it becomes. */
export function newFiringRecord(input: NewCampaignFiring): CampaignFiring {
  if (input === null || typeof input !== 'object') fail('firing', 'must be an object');
  checkCampaignId(input.campaignId, 'campaignId');
  checkCampaignTime('scheduledAt', input.scheduledAt);
  checkCampaignTime('at', input.at);
  if (!FIRING_OUTCOMES.includes(input.outcome)) fail('outcome', "must be 'fired' or 'missed'");
  if (input.taskId !== undefined && (!Number.isSafeInteger(input.taskId) || input.taskId < 1))
    fail('taskId', 'must be a positive integer');
  if (input.outcome === 'fired' && input.taskId === undefined) fail('taskId', 'is required for a fired outcome');
  if (input.reason !== undefined) checkString('reason', input.reason, MAX_CAMPAIGN_ID_CHARS);
  if (input.manual !== undefined && typeof input.manual !== 'boolean') fail('manual', 'must be true or false');
  if (input.runKey !== undefined) checkString('runKey', input.runKey, MAX_CAMPAIGN_ID_CHARS);
  return {
    campaignId: input.campaignId,
    scheduledAt: input.scheduledAt,
    outcome: input.outcome,
    taskId: input.taskId ?? null,
    reason: input.reason ?? null,
    at: input.at,
    ...(input.manual === true ? { manual: true as const } : {}),
    ...(input.runKey === undefined ? {} : { runKey: input.runKey }),
  };
}

/** advanceLastScheduled arguments: `expected` null or epoch ms, `next` epoch ms after it. */
export function checkAdvance(expected: number | null, next: number): void {
  if (expected !== null) checkCampaignTime('expected', expected);
  checkCampaignTime('next', next);
  if (expected !== null && next <= expected) fail('next', 'must be later than expected');
}

/** The error for a campaign that does not exist (or that the caller may not see: the same answer). */
export function campaignNotFound(id: unknown): NotFoundError {
  return new NotFoundError('CAMPAIGN_NOT_FOUND', `campaign ${String(id)} does not exist`, { campaignId: id });
}

/** Whether a campaign is one a search finds: its name, its template's title or body, or its id. */
export function campaignMatchesSearch(campaign: Campaign, search: TextSearch): boolean {
  const { content } = campaign.template;
  return matchesTextSearch(search, campaign.id, [campaign.name, content.title, content.body]);
}
