import type { PriorityClass, Task } from '../api/types';
import { parseDateTime } from './datetime-input';
import {
  emptyLocalTime,
  localTimeBody,
  localTimeFieldOf,
  localTimeFormOf,
  validateLocalTime,
  type DeliverAtRequest,
  type QuietHoursRequest,
  type LocalTimeField,
  type LocalTimeForm,
} from './local-time-form';
import {
  emptyRollout,
  rolloutBody,
  rolloutFieldOf,
  rolloutFormOf,
  validateRollout,
  type RolloutBody,
  type RolloutField,
  type RolloutForm,
} from './rollout-form';

/**
 * The new-broadcast form: its values, the checks the console can make
 * before sending (the server checks again and its errors land on the same
 * fields), and the POST /api/v1/tasks body it becomes.
 */
export interface BroadcastForm {
  accountId: string;
  audience: 'list' | 'followers' | 'query';
  listId: string;
  title: string;
  body: string;
  /** Personalised: title and body are templates filled per recipient (docs/delivery.md). */
  personalised: boolean;
  /** The uin the personalised preview renders for. */
  sampleUin: string;
  when: 'now' | 'at';
  /** As typed: YYYY-MM-DD HH:MM on a 24-hour clock, read in the browser's time zone (lib/datetime-input.ts). */
  sendAt: string;
  priority: PriorityClass;
  /** Lifetime from the send time, in hours (decimals allowed); empty for the server default. */
  durationHours: string;
  /** Pre-delivery: deliver ahead, and recipients' devices show it at `displayAt` (as `sendAt` is typed). */
  preDeliver: boolean;
  displayAt: string;
  /** Recipients per second to send at, a whole number; empty: not paced (as fast as the hosts allow). */
  speed: string;
  /** Advanced delivery: local time and quiet hours (lib/local-time-form.ts). */
  local: LocalTimeForm;
  /** Advanced delivery: collapse key, canary, variants (lib/rollout-form.ts). */
  rollout: RolloutForm;
}

/** A field's error, by the form's own field names (the advanced section's included). */
export type FormField = Exclude<keyof BroadcastForm, 'local' | 'rollout'> | LocalTimeField | RolloutField;
export type FieldErrors = Partial<Record<FormField, string>>;

export const emptyForm = (accountId: string): BroadcastForm => ({
  accountId,
  audience: 'list',
  listId: '',
  title: '',
  body: '',
  personalised: false,
  sampleUin: '',
  when: 'now',
  sendAt: '',
  priority: 'normal',
  durationHours: '',
  preDeliver: false,
  displayAt: '',
  speed: '',
  local: emptyLocalTime(),
  rollout: emptyRollout(),
});

/**
 * A new broadcast like `task`: its account, list, content, priority,
 * duration, speed and advanced delivery settings, sent now (the operator picks a new time). The
 * pre-delivery display time is the old broadcast's moment, so it is left out.
 */
export function cloneOf(task: Task): BroadcastForm {
  const hours = (task.expiresAt - task.sendAt) / 3_600_000;
  return {
    ...emptyForm(task.accountId),
    listId: task.listId,
    title: task.content.title ?? '',
    body: task.content.body,
    personalised: task.content.template === true,
    priority: task.priority,
    durationHours: hours > 0 ? String(Math.round(hours * 100) / 100) : '',
    speed: task.speed ? String(task.speed) : '',
    local: localTimeFormOf(task.deliverAt, task.quietHours),
    rollout: rolloutFormOf(task),
  };
}

/**
 * The longest duration a default Herald takes (tasks.maxTtlMs, 30 days): checked here so the
 * operator hears it at once; a server configured otherwise answers with its own maximum.
 */
export const DEFAULT_MAX_DURATION_SECONDS = 30 * 86_400;

/** "At most 720 hours (30 days)." */
export function durationTooLong(maxSeconds: number): string {
  const hours = maxSeconds / 3600;
  const days = maxSeconds / 86_400;
  return `At most ${hours.toLocaleString('en-US', { maximumFractionDigits: 2 })} hours (${days.toLocaleString('en-US', { maximumFractionDigits: 2 })} days).`;
}
/** The API's bound on a task's speed (recipients/s); the account's maxSpeed may be lower (the server says). */
export const MAX_SPEED = 100_000_000;

export const ACCOUNT_ID = /^[a-z0-9_]{1,64}$/;
export const MAX_TITLE = 256;

export function validateBroadcast(form: BroadcastForm, now: number): FieldErrors {
  const errors: FieldErrors = {};
  if (!ACCOUNT_ID.test(form.accountId)) errors.accountId = 'Pick an account (lower-case letters, digits and _).';
  if (form.listId === '')
    errors.listId = form.audience === 'list' ? 'Upload a recipient list first.' : 'Build the audience first.';
  if (form.title.length > MAX_TITLE) errors.title = `At most ${MAX_TITLE} characters (${form.title.length} now).`;
  if (form.body.trim() === '') errors.body = 'Write the message text.';
  if (form.personalised && form.sampleUin.trim() !== '' && !isUin(form.sampleUin))
    errors.sampleUin = 'A uin: a whole number from 0 to 4294967295.';
  if (form.when === 'at') {
    const at = parseDateTime(form.sendAt);
    if (form.sendAt.trim() === '') errors.sendAt = 'Write the date and time to send at: YYYY-MM-DD HH:MM.';
    else if ('error' in at) errors.sendAt = at.error;
    else if (at.at < now - 60_000) errors.sendAt = 'This time has passed: choose a later one, or send now.';
  }
  if (form.durationHours.trim() !== '') {
    const hours = Number(form.durationHours);
    if (!Number.isFinite(hours) || hours <= 0) errors.durationHours = 'A positive number of hours.';
    else if (Math.round(hours * 3600) < 1) errors.durationHours = 'At least one second.';
    else if (hours * 3600 > DEFAULT_MAX_DURATION_SECONDS)
      errors.durationHours = durationTooLong(DEFAULT_MAX_DURATION_SECONDS);
  }
  if (form.speed.trim() !== '') {
    const speed = Number(form.speed);
    if (!Number.isInteger(speed) || speed < 1 || speed > MAX_SPEED)
      errors.speed = `A whole number of recipients per second, 1 to ${MAX_SPEED.toLocaleString('en-US')}; empty: not paced.`;
  }
  if (form.preDeliver) {
    const display = parseDateTime(form.displayAt);
    const send = form.when === 'at' ? parseLocal(form.sendAt) : now;
    if (form.displayAt.trim() === '') errors.displayAt = 'Write the time recipients should see it: YYYY-MM-DD HH:MM.';
    else if ('error' in display) errors.displayAt = display.error;
    else if (send !== null && display.at < send) errors.displayAt = 'The display time cannot be before the send time.';
  }
  const lifetime = errors.durationHours === undefined ? lifetimeSeconds(form) : undefined;
  return {
    ...errors,
    ...validateLocalTime(form.local, lifetime),
    ...validateRollout(form.rollout, form.local.localTimeOn || form.local.quietOn),
  };
}

/** The duration the form sets, in seconds; undefined for the server's default. */
function lifetimeSeconds(form: BroadcastForm): number | undefined {
  return form.durationHours.trim() === '' ? undefined : Math.round(Number(form.durationHours) * 3600);
}

/** True for a uin typed as decimal digits, in [0, 2^32). */
export function isUin(text: string): boolean {
  return /^\d{1,10}$/.test(text.trim()) && Number(text) < 2 ** 32;
}

/** A typed date and time (YYYY-MM-DD HH:MM) as epoch ms in the browser's zone, or null. */
export function parseLocal(value: string): number | null {
  const parsed = parseDateTime(value);
  return 'error' in parsed ? null : parsed.at;
}

export interface CreateTaskBody extends RolloutBody {
  accountId: string;
  listId: string;
  content: { body: string; title?: string; template?: true };
  priority: PriorityClass;
  sendAt?: string;
  ttlSeconds?: number;
  displayAt?: string;
  /** Recipients per second; absent: not paced. */
  speed?: number;
  /** The recipient count the operator confirmed for a large broadcast (a 409 CONFIRMATION_REQUIRED asked for it). */
  confirm?: number;
  deliverAt?: DeliverAtRequest;
  quietHours?: QuietHoursRequest;
}

export function toCreateBody(form: BroadcastForm): CreateTaskBody {
  const body: CreateTaskBody = {
    accountId: form.accountId,
    listId: form.listId,
    content: form.title.trim() === '' ? { body: form.body } : { title: form.title, body: form.body },
    priority: form.priority,
  };
  if (form.personalised) body.content.template = true;
  if (form.when === 'at') body.sendAt = new Date(parseLocal(form.sendAt)!).toISOString();
  if (form.durationHours.trim() !== '') body.ttlSeconds = Math.round(Number(form.durationHours) * 3600);
  if (form.speed.trim() !== '') body.speed = Number(form.speed);
  if (form.preDeliver) body.displayAt = new Date(parseLocal(form.displayAt)!).toISOString();
  return { ...body, ...localTimeBody(form.local), ...rolloutBody(form.rollout, form.personalised) };
}

/** The form field a server error is about: its `field` ('content.body', 'sendAt', ...) mapped onto the form. */
export function formFieldOf(serverField: string | undefined): FormField | undefined {
  switch (serverField) {
    case 'accountId':
      return 'accountId';
    case 'listId':
      return 'listId';
    case 'content.body':
    case 'content':
      return 'body';
    case 'content.title':
      return 'title';
    case 'sendAt':
      return 'sendAt';
    case 'ttlSeconds':
      return 'durationHours';
    case 'priority':
      return 'priority';
    case 'source.kind':
      return 'audience';
    case 'displayAt':
      return 'displayAt';
    case 'speed':
      return 'speed';
    default:
      return localTimeFieldOf(serverField) ?? rolloutFieldOf(serverField);
  }
}
