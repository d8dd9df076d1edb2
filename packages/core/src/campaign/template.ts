/*
 * A campaign's template (docs/campaigns.md, "Template"): what each firing's
 * task is made from. The check every CampaignStore adapter and the API share
 * (each refusal a ValidationError naming `template.<field>`, with the task's
 * own validators), and the task fields a firing takes from it. Pure.
 */
import { ValidationError } from '../errors';
import type { PriorityClass, TaskContent } from '../task/model';
import { taskContentOf } from '../task/content';
import { checkCollapseKey } from '../task/collapse-key';
import { checkTaskTargeting } from '../task/validate';
import { checkCampaignContent, renderFiringVariables, type FiringValues } from '../template/firing';
import { parseCanary, parseVariants } from '../rollout/parse';
import type { CanarySpec, RolloutVariant, TaskRollout } from '../rollout/model';
import { parseDeliverAt, type DeliverAt, type DeliverAtRequest } from '../time/local-time';
import { parseQuietHours, type QuietHours, type QuietPushMode } from '../time/quiet-hours';
import { checkNoResend, type NoResend } from './no-resend';
import { fmix32 } from '../ring/murmur3';

/** Quiet hours as a request writes them: 'HH:MM-HH:MM', or `{ hours, during? }` (core time/quiet-hours.ts). */
export type QuietHoursRequest = string | { hours: string; during?: QuietPushMode };

/** What each firing's task is made from. */
export interface CampaignTemplate {
  /** A recipient list of the campaign's account; every firing sends to it as it is then. */
  listId: string;
  content: TaskContent;
  priority: PriorityClass;
  /** The task's lifetime from its scheduled time; absent: tasks.defaultTtlMs. */
  ttlSeconds?: number;
  /** Each firing's task is targeted with this query (NewTask.targeting); absent: untargeted. */
  targeting?: string;
  /** What counts as already sent for a firing (campaign/no-resend.ts); absent: scope content. */
  noResend?: NoResend;
  /** Each firing's task is delivered at this local time (NewTask.deliverAt, docs/local-time.md), as the request wrote it. */
  deliverAt?: DeliverAtRequest;
  /** Each firing's task's quiet hours, as the request wrote them (NewTask.quietHours). */
  quietHours?: QuietHoursRequest;
  /** Each firing's task's collapse key (NewTask.collapseKey): a firing supersedes the one before it offline. */
  collapseKey?: string;
  /** Each firing's task starts as this canary (docs/rollouts.md); never with deliverAt or quietHours. */
  canary?: CanarySpec;
  /** Each firing's task's A/B variants (docs/rollouts.md); their content may name firing variables. */
  variants?: RolloutVariant[];
  /** The A/B holdout share, in (0, 1); only with variants, absent when 0. */
  holdout?: number;
}

/** Longest content kept in a template (a store's own bound; the API applies tasks.maxContentChars). */
const MAX_TEMPLATE_BODY_CHARS = 1 << 20;
/** The longest list id a store keeps, in characters (MAX_CAMPAIGN_ID_CHARS). */
const MAX_LIST_ID_CHARS = 255;

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field} ${message}`, { field });
};

function checkString(field: string, value: unknown, maxChars: number): string {
  if (typeof value !== 'string' || value === '') return fail(field, 'must be a non-empty string');
  if (value.length > maxChars && [...value].length > maxChars) fail(field, `is longer than ${maxChars} characters`);
  return value;
}

function checkContent(value: unknown, field: string): TaskContent {
  if (value === null || typeof value !== 'object') return fail(field, 'must be an object with a body');
  const c = value as Partial<TaskContent>;
  const body = checkString(`${field}.body`, c.body, MAX_TEMPLATE_BODY_CHARS);
  if (c.title !== undefined && typeof c.title !== 'string') fail(`${field}.title`, 'must be a string');
  if (c.template !== undefined && c.template !== true) fail(`${field}.template`, 'must be true or absent');
  const content = taskContentOf({
    body,
    ...(c.title === undefined ? {} : { title: c.title }),
    ...(c.template === true ? { template: true } : {}),
  });
  // Parsed now, not at its first firing (TEMPLATE_INVALID naming field and position); it may name the firing
  // variables as well as the recipient's.
  checkCampaignContent(content, field);
  return content;
}

/** The variants and holdout, checked by the task's parser under `<field>.`; each variant's content as a template's. */
function checkTemplateVariants(
  t: Partial<CampaignTemplate>,
  field: string,
): Pick<CampaignTemplate, 'variants' | 'holdout'> {
  if (t.variants === undefined) {
    if (t.holdout !== undefined) fail(`${field}.holdout`, 'needs variants');
    return {};
  }
  const split = parseVariants(t.variants, t.holdout, `${field}.`);
  split.variants.forEach((v, i) => checkCampaignContent(v.content, `${field}.variants[${i}].content`));
  return { variants: split.variants, ...(split.holdout > 0 ? { holdout: split.holdout } : {}) };
}

const TEMPLATE_FIELDS = new Set<string>([
  'listId',
  'content',
  'priority',
  'ttlSeconds',
  'targeting',
  'noResend',
  'deliverAt',
  'quietHours',
  'collapseKey',
  'canary',
  'variants',
  'holdout',
]);

/** A template, checked and copied; an unknown field is refused, named. */
export function checkTemplate(value: unknown, field = 'template'): CampaignTemplate {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(field, 'must be an object');
  for (const key of Object.keys(value)) if (!TEMPLATE_FIELDS.has(key)) fail(`${field}.${key}`, 'is not a known field');
  const t = value as Partial<CampaignTemplate>;
  const listId = checkString(`${field}.listId`, t.listId, MAX_LIST_ID_CHARS);
  const content = checkContent(t.content, `${field}.content`);
  if (t.priority !== 'normal' && t.priority !== 'realtime') fail(`${field}.priority`, "must be 'normal' or 'realtime'");
  if (t.ttlSeconds !== undefined && (!Number.isSafeInteger(t.ttlSeconds) || t.ttlSeconds < 1))
    fail(`${field}.ttlSeconds`, 'must be a positive integer');
  // Parsed now, not at the first firing: QUERY_INVALID naming template.targeting and the position.
  if (t.targeting !== undefined) checkTaskTargeting(t.targeting, `${field}.targeting`);
  const noResend = t.noResend === undefined ? undefined : checkNoResend(t.noResend, `${field}.noResend`);
  // Parsed now, kept as written: each firing parses it again into its task's (templateTaskFields).
  if (t.deliverAt !== undefined) parseDeliverAt(t.deliverAt, `${field}.deliverAt`);
  const quiet = t.quietHours === undefined ? undefined : parseQuietHours(t.quietHours, `${field}.quietHours`);
  if (t.collapseKey !== undefined) checkCollapseKey(t.collapseKey, `${field}.collapseKey`);
  const canary = t.canary === undefined ? undefined : parseCanary(t.canary, `${field}.canary`);
  // The task refuses the pair (task/validate.ts: neither hold can wait on the other): so does its template, at once.
  if (canary !== undefined && (t.deliverAt !== undefined || quiet !== undefined))
    fail(`${field}.canary`, 'cannot be combined with local-time delivery (deliverAt or quietHours)');
  return {
    listId,
    content,
    priority: t.priority!,
    ...(t.ttlSeconds === undefined ? {} : { ttlSeconds: t.ttlSeconds }),
    ...(t.targeting === undefined ? {} : { targeting: t.targeting }),
    ...(noResend === undefined ? {} : { noResend }),
    ...(t.deliverAt === undefined ? {} : { deliverAt: { ...t.deliverAt } }),
    ...(quiet === undefined ? {} : { quietHours: quietRequestOf(t.quietHours!) }),
    ...(t.collapseKey === undefined ? {} : { collapseKey: t.collapseKey }),
    ...(canary === undefined ? {} : { canary }),
    ...checkTemplateVariants(t, field),
  };
}

/** A checked request's quiet hours copied as written: the span, or the object form with what it names. */
function quietRequestOf(raw: QuietHoursRequest): QuietHoursRequest {
  if (typeof raw === 'string') return raw;
  return { hours: raw.hours, ...(raw.during === undefined ? {} : { during: raw.during }) };
}

/** The fields of a firing's task that its template's delivery and rollout settings give. */
export interface TemplateTaskFields {
  deliverAt?: DeliverAt;
  quietHours?: QuietHours;
  collapseKey?: string;
  rollout?: TaskRollout;
}

/**
 * A firing's task fields from its template. The rollout seed is derived
 * from the firing's identity (`seedKey`, its idempotency key): each firing
 * draws a fresh sample and split, yet a firing redone after a crash makes
 * the very task it made before. Variant contents get the firing's values,
 * as the template's content does.
 */
export function templateTaskFields(
  template: CampaignTemplate,
  values: FiringValues,
  seedKey: string,
): TemplateTaskFields {
  const { canary, variants, holdout } = template;
  const rollout: TaskRollout | undefined =
    canary === undefined && variants === undefined
      ? undefined
      : {
          seed: seedOf(seedKey),
          ...(canary === undefined ? {} : { canary }),
          ...(variants === undefined
            ? {}
            : {
                variants: variants.map((v, i) => ({
                  ...v,
                  content: renderFiringVariables(v.content, values, `template.variants[${i}].content`),
                })),
              }),
          ...(holdout === undefined ? {} : { holdout }),
        };
  return {
    ...(template.deliverAt === undefined ? {} : { deliverAt: parseDeliverAt(template.deliverAt) }),
    ...(template.quietHours === undefined ? {} : { quietHours: parseQuietHours(template.quietHours) }),
    ...(template.collapseKey === undefined ? {} : { collapseKey: template.collapseKey }),
    ...(rollout === undefined ? {} : { rollout }),
  };
}

/** An unsigned 32-bit seed from a text: FNV-1a, then murmur3's finaliser so near keys land far apart. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return fmix32(h);
}
