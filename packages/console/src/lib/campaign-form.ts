import type { NoResend, PriorityClass } from '../api/types';
import { ACCOUNT_ID, DEFAULT_MAX_DURATION_SECONDS, durationTooLong } from './broadcast-form';
import {
  emptyLocalTime,
  localTimeBody,
  localTimeFieldOf,
  validateLocalTime,
  type LocalTimeField,
  type LocalTimeForm,
} from './local-time-form';
import {
  emptyRollout,
  rolloutBody,
  rolloutFieldOf,
  validateRollout,
  type RolloutField,
  type RolloutForm,
} from './rollout-form';

/** The new-campaign form: values, the console's own checks, the request body, and where server errors land. */
export interface CampaignForm {
  accountId: string;
  name: string;
  cron: string;
  timeZone: string;
  listId: string;
  title: string;
  body: string;
  priority: PriorityClass;
  durationHours: string;
  enabled: boolean;
  /** The no-resend scope: 'content' (each content once), 'firing' (every firing), 'window' (once per `noResendWindow`). */
  noResendScope: NoResend['scope'];
  /** For scope 'window': a number of days, as typed. */
  noResendWindowDays: string;
  /** Each firing's local-time delivery and quiet hours (docs/local-time.md, "Campaigns"). */
  local: LocalTimeForm;
  /** Each firing's collapse key, canary and A/B variants (docs/campaigns.md, "Template"). */
  rollout: RolloutForm;
}

export type CampaignField = Exclude<keyof CampaignForm, 'local' | 'rollout'> | LocalTimeField | RolloutField;
export type CampaignErrors = Partial<Record<CampaignField, string>>;

export const emptyCampaign = (accountId: string, timeZone: string): CampaignForm => ({
  accountId,
  name: '',
  cron: '0 9 * * 1-5',
  timeZone,
  listId: '',
  title: '',
  body: '',
  priority: 'normal',
  durationHours: '',
  enabled: true,
  noResendScope: 'content',
  noResendWindowDays: '7',
  local: emptyLocalTime(),
  rollout: emptyRollout(),
});

/** The scope's request form: a window is whole days (the API also takes `90m`, `12h`). */
export function noResendOf(form: Pick<CampaignForm, 'noResendScope' | 'noResendWindowDays'>): NoResend {
  return form.noResendScope === 'window'
    ? { scope: 'window', window: `${form.noResendWindowDays.trim()}d` }
    : { scope: form.noResendScope };
}

/** For scope 'window': the days typed must be a whole number 1..366 (the API's bound). */
export function noResendWindowError(
  form: Pick<CampaignForm, 'noResendScope' | 'noResendWindowDays'>,
): string | undefined {
  const days = form.noResendWindowDays.trim();
  if (form.noResendScope !== 'window' || (/^[1-9][0-9]{0,2}$/.test(days) && Number(days) <= 366)) return undefined;
  return 'A whole number of days, 1 to 366.';
}

/** An empty text is the server's default; else a positive number of hours within the default maximum. */
export function durationHoursError(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const hours = Number(text);
  if (!Number.isFinite(hours) || hours <= 0) return 'A positive number of hours.';
  if (Math.round(hours * 3600) < 1) return 'At least one second.';
  if (hours * 3600 > DEFAULT_MAX_DURATION_SECONDS) return durationTooLong(DEFAULT_MAX_DURATION_SECONDS);
  return undefined;
}

export function validateCampaign(form: CampaignForm): CampaignErrors {
  const errors: CampaignErrors = {};
  if (!ACCOUNT_ID.test(form.accountId)) errors.accountId = 'Pick an account first (top right).';
  if (form.name.trim() === '') errors.name = 'Name the campaign.';
  if (form.cron.trim() === '') errors.cron = 'A cron expression, e.g. 0 9 * * 1-5 (09:00 on weekdays).';
  if (form.timeZone.trim() === '') errors.timeZone = 'A time zone, e.g. Europe/Paris or UTC.';
  if (form.listId === '') errors.listId = 'Upload the recipient list each firing sends to.';
  if (form.body.trim() === '') errors.body = 'Write the message text.';
  if (form.title.length > 256) errors.title = `At most 256 characters (${form.title.length} now).`;
  const duration = durationHoursError(form.durationHours);
  if (duration !== undefined) errors.durationHours = duration;
  const windowError = noResendWindowError(form);
  if (windowError !== undefined) errors.noResendWindowDays = windowError;
  const lifetime =
    duration === undefined && form.durationHours.trim() !== '' ? Number(form.durationHours) * 3600 : undefined;
  return {
    ...errors,
    ...validateLocalTime(form.local, lifetime),
    ...validateRollout(form.rollout, form.local.localTimeOn || form.local.quietOn),
  };
}

export function toCampaignBody(form: CampaignForm) {
  return {
    accountId: form.accountId,
    name: form.name.trim(),
    cron: form.cron.trim(),
    timeZone: form.timeZone.trim(),
    enabled: form.enabled,
    template: {
      listId: form.listId,
      content: form.title.trim() === '' ? { body: form.body } : { title: form.title, body: form.body },
      priority: form.priority,
      ...(form.durationHours.trim() === '' ? {} : { ttlSeconds: Math.round(Number(form.durationHours) * 3600) }),
      noResend: noResendOf(form),
      ...localTimeBody(form.local),
      ...rolloutBody(form.rollout, false),
    },
  };
}

/** A refusal of a template's rollout field ('template.canary.sample', ...) on the form's field. */
export const templateRolloutFieldOf = (serverField: string | undefined): RolloutField | undefined =>
  serverField?.startsWith('template.') ? rolloutFieldOf(serverField.slice('template.'.length)) : undefined;

/** The form field a server error names ('template.content.body' is the message, ...). */
export function campaignFieldOf(serverField: string | undefined): CampaignField | undefined {
  const map: Record<string, CampaignField> = {
    accountId: 'accountId',
    name: 'name',
    cron: 'cron',
    timeZone: 'timeZone',
    'template.listId': 'listId',
    'template.content.body': 'body',
    'template.content': 'body',
    'template.content.title': 'title',
    'template.ttlSeconds': 'durationHours',
    'template.priority': 'priority',
    'template.noResend': 'noResendScope',
    'template.noResend.scope': 'noResendScope',
    'template.noResend.window': 'noResendWindowDays',
  };
  return serverField === undefined
    ? undefined
    : (map[serverField] ?? localTimeFieldOf(serverField) ?? templateRolloutFieldOf(serverField));
}
