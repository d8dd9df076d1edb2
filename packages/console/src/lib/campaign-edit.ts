import type { Campaign, NoResend, PriorityClass } from '../api/types';
import { durationTooLong } from './broadcast-form';
import { durationHoursError, noResendOf, noResendWindowError, templateRolloutFieldOf } from './campaign-form';
import { rolloutBody, rolloutFormOf, validateRollout, type RolloutField, type RolloutForm } from './rollout-form';
import { operatorMessage, type Refusal } from './operator-words';
import {
  localTimeBody,
  localTimeFieldOf,
  localTimeFormOf,
  validateLocalTime,
  type LocalTimeField,
  type LocalTimeForm,
} from './local-time-form';

/**
 * The campaign page's edit form (PATCH /api/v1/campaigns/:id): what the
 * operator may change, the console's own checks, the request body, and a
 * server refusal put on its field in the form's words.
 */
export interface CampaignDraft {
  name: string;
  cron: string;
  timeZone: string;
  title: string;
  body: string;
  noResendScope: NoResend['scope'];
  noResendWindowDays: string;
  /** The list each firing sends to: the campaign's own until another is uploaded. */
  listId: string;
  priority: PriorityClass;
  /** Hours each firing's broadcast stays valid, as typed; empty: the server's default. */
  durationHours: string;
  /** Each firing's local time and quiet hours (docs/local-time.md, "Campaigns"). */
  local: LocalTimeForm;
  /** Each firing's collapse key, canary and A/B variants (docs/campaigns.md, "Template"). */
  rollout: RolloutForm;
}

export type DraftField = Exclude<keyof CampaignDraft, 'local' | 'rollout'> | LocalTimeField | RolloutField;
export type DraftErrors = Partial<Record<DraftField, string>>;

/** Where the server's field names land in the form. */
const FIELD_OF: Record<string, DraftField> = {
  name: 'name',
  cron: 'cron',
  timeZone: 'timeZone',
  'template.content': 'body',
  'template.content.title': 'title',
  'template.content.body': 'body',
  'template.noResend': 'noResendScope',
  'template.noResend.scope': 'noResendScope',
  'template.noResend.window': 'noResendWindowDays',
  'template.listId': 'listId',
  'template.priority': 'priority',
  'template.ttlSeconds': 'durationHours',
};

export const draftFieldOf = (serverField: string | undefined): DraftField | undefined =>
  serverField === undefined
    ? undefined
    : (FIELD_OF[serverField] ?? localTimeFieldOf(serverField) ?? templateRolloutFieldOf(serverField));

/** The draft's window in days: a stored window of whole days, else the form's default of 7. */
const windowDaysOf = (noResend: NoResend | undefined) =>
  noResend?.scope === 'window' && noResend.window.endsWith('d') ? noResend.window.slice(0, -1) : '7';

/** Hours as the new-broadcast form writes them: up to two decimals, no trailing zeros. */
export const hoursOf = (ttlSeconds: number | undefined): string =>
  ttlSeconds === undefined ? '' : String(Math.round((ttlSeconds / 3600) * 100) / 100);

export function draftOf(campaign: Campaign): CampaignDraft {
  const t = campaign.template;
  return {
    name: campaign.name,
    cron: campaign.cron,
    timeZone: campaign.timeZone,
    title: t.content.title ?? '',
    body: t.content.body,
    noResendScope: t.noResend?.scope ?? 'content',
    noResendWindowDays: windowDaysOf(t.noResend),
    listId: t.listId,
    priority: t.priority,
    durationHours: hoursOf(t.ttlSeconds),
    local: localTimeFormOf(t.deliverAt, t.quietHours),
    rollout: rolloutFormOf({
      ...(t.collapseKey === undefined ? {} : { collapseKey: t.collapseKey }),
      rollout: { canary: t.canary, variants: t.variants, holdout: t.holdout },
    }),
  };
}

export function validateDraft(draft: CampaignDraft): DraftErrors {
  const found: DraftErrors = {};
  if (draft.name.trim() === '') found.name = 'Name the campaign.';
  if (draft.body.trim() === '') found.body = 'Write the message text.';
  if (draft.listId === '') found.listId = 'Upload the list each firing sends to, or discard the changes.';
  const duration = durationHoursError(draft.durationHours);
  if (duration !== undefined) found.durationHours = duration;
  const windowError = noResendWindowError(draft);
  if (windowError !== undefined) found.noResendWindowDays = windowError;
  const hours = draft.durationHours.trim();
  const lifetime = duration === undefined && hours !== '' ? Number(hours) * 3600 : undefined;
  return {
    ...found,
    ...validateLocalTime(draft.local, lifetime),
    ...validateRollout(draft.rollout, draft.local.localTimeOn || draft.local.quietOn),
  };
}

/**
 * The PATCH body: the whole template (the API replaces it whole), so what the
 * form does not show (personalisation, targeting) is sent as it was.
 */
export function patchOf(campaign: Campaign, draft: CampaignDraft) {
  const t = campaign.template;
  const hours = draft.durationHours.trim();
  return {
    name: draft.name.trim(),
    cron: draft.cron.trim(),
    timeZone: draft.timeZone.trim(),
    template: {
      listId: draft.listId,
      content: {
        ...(draft.title.trim() === '' ? { body: draft.body } : { title: draft.title, body: draft.body }),
        ...(t.content.template === true ? { template: true } : {}),
      },
      priority: draft.priority,
      ...(hours === '' ? {} : { ttlSeconds: Math.round(Number(hours) * 3600) }),
      ...(t.targeting === undefined ? {} : { targeting: t.targeting }),
      noResend: noResendOf(draft),
      ...localTimeBody(draft.local),
      // A personalised template's variants are personalised too, as a task's are.
      ...rolloutBody(draft.rollout, t.content.template === true),
    },
  };
}

/** A refusal of the list or the duration in the form's words (the server speaks of list ids and ttlSeconds). */
export function draftErrorText(error: Refusal, accountId: string): string {
  const maximum = error.details.maximum;
  if (error.field === 'template.ttlSeconds' && typeof maximum === 'number') return durationTooLong(maximum);
  if (error.code === 'LIST_NOT_FOUND')
    return `That list is not one of account ${accountId}'s lists any more: upload the list again.`;
  return operatorMessage(error);
}
