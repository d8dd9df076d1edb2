/**
 * Local-time delivery and quiet hours in a form (docs/local-time.md): the
 * values as typed, the checks the server makes (said before anything is
 * sent; the server checks again and its refusal lands on the same field),
 * the request fields they become, and where a refusal's field lands. Shared
 * by the new-broadcast and the new-campaign forms. Pure.
 */

export const MISSED_CHOICES = ['next_day', 'skip', 'now'] as const;
export type MissedChoice = (typeof MISSED_CHOICES)[number];

/** What each `missed` choice means to an operator. */
export const MISSED_TEXT: Readonly<Record<MissedChoice, string>> = {
  next_day: 'the next day at that time',
  skip: 'not at all',
  now: 'at once',
};

/** What a push inside quiet hours does (a task's and an account's `quietHours.during`). */
export const QUIET_DURING_CHOICES = ['hold', 'offline'] as const;
export type QuietDuring = (typeof QUIET_DURING_CHOICES)[number];

/** Each `during` choice in the operator's words: "inside quiet hours, …". */
export const QUIET_DURING_TEXT: Readonly<Record<QuietDuring, string>> = {
  hold: 'hold until they end',
  offline: 'queue for the next login',
};

/** Quiet hours as the API answers them: a task's stored record, or the request form an account's defaults read back as. */
export type QuietHoursAnswer =
  string | { hours: string; during?: QuietDuring } | { from: string; to: string; during?: 'offline'; atLogin?: 'hold' };

/** Quiet hours' from, to and mode, whichever form the API answered; null for none. */
export function quietPartsOf(
  quiet: QuietHoursAnswer | null | undefined,
): { from: string; to: string; during: QuietDuring } | null {
  if (quiet === null || quiet === undefined) return null;
  if (typeof quiet === 'string' || 'hours' in quiet) {
    const [from = '', to = ''] = (typeof quiet === 'string' ? quiet : quiet.hours).split('-');
    return { from, to, during: typeof quiet === 'string' ? 'hold' : (quiet.during ?? 'hold') };
  }
  return { from: quiet.from, to: quiet.to, during: quiet.during ?? 'hold' };
}

/** Quiet hours in a sentence's words: '22:00–08:00, queue for the next login'. */
export function quietHoursWords(quiet: QuietHoursAnswer | null | undefined): string {
  const parts = quietPartsOf(quiet);
  return parts === null ? 'none' : `${parts.from}–${parts.to}, ${QUIET_DURING_TEXT[parts.during]}`;
}

/**
 * Quiet hours as a request sends them: the string when held (what every
 * Herald takes, campaigns' templates included), the object form only for
 * 'offline'.
 */
export function quietHoursRequest(from: string, to: string, during: QuietDuring): QuietHoursRequest {
  const hours = `${from.trim()}-${to.trim()}`;
  return during === 'offline' ? { hours, during } : hours;
}

export type QuietHoursRequest = string | { hours: string; during: 'offline' };

export interface LocalTimeForm {
  /** Deliver at a wall-clock time in each recipient's own zone instead of one instant. */
  localTimeOn: boolean;
  /** HH:MM, 24-hour. */
  localTime: string;
  /** How late a zone may still be sent to when the task is planned: '2h', '90m', '1h30m'. */
  window: string;
  missed: MissedChoice;
  /** The zone of recipients without a `tz`; empty: the account's default, else UTC. */
  defaultTimeZone: string;
  quietOn: boolean;
  /** Quiet hours' ends, HH:MM each, in the recipient's local time. */
  quietFrom: string;
  quietTo: string;
  /** Inside quiet hours: hold the push to their end, or queue it for the next login (task forms only; a campaign's template takes 'hold'). */
  quietDuring: QuietDuring;
}

export type LocalTimeField = keyof LocalTimeForm;
export type LocalTimeErrors = Partial<Record<LocalTimeField, string>>;

export const emptyLocalTime = (): LocalTimeForm => ({
  localTimeOn: false,
  localTime: '09:00',
  window: '1h',
  missed: 'next_day',
  defaultTimeZone: '',
  quietOn: false,
  quietFrom: '22:00',
  quietTo: '08:00',
  quietDuring: 'hold',
});

/** This form's errors among a whole form's. */
export function localTimeErrorsOf(errors: Readonly<Record<string, string | undefined>>): LocalTimeErrors {
  const fields = Object.keys(emptyLocalTime());
  return Object.fromEntries(Object.entries(errors).filter(([name]) => fields.includes(name)));
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** The API's bounds on the window (core MAX_WINDOW_MS). */
const MAX_WINDOW_MS = 12 * HOUR_MS;

/** 'HH:MM' (00:00..23:59) as minutes after midnight, or null. */
export function minutesOf(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return match === null ? null : Number(match[1]) * 60 + Number(match[2]);
}

/** '2h', '90m', '1h30m' as ms, or null when it is none of those. */
export function windowMsOf(text: string): number | null {
  const match = /^(?:(\d{1,2})h)?(?:(\d{1,3})m)?$/.exec(text.trim());
  if (match === null || text.trim() === '') return null;
  return Number(match[1] ?? 0) * HOUR_MS + Number(match[2] ?? 0) * MINUTE_MS;
}

/** A window in ms as the form writes it: '2h', '90m' becomes '1h30m'. */
export function windowText(ms: number): string {
  const hours = Math.floor(ms / HOUR_MS);
  const minutes = Math.round((ms % HOUR_MS) / MINUTE_MS);
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 || hours === 0 ? `${minutes}m` : ''}`;
}

/**
 * A recipient's zone as the server takes it: '+HH:MM' / '-HH:MM' within
 * ±14:00, or an IANA name the browser's time-zone database knows (the
 * server's is the same ICU data; it has the last word).
 */
export function isTimeZone(text: string): boolean {
  const offset = /^[+-](\d\d):(\d\d)$/.exec(text);
  if (offset !== null) return Number(offset[2]) <= 59 && Number(offset[1]) * 60 + Number(offset[2]) <= 14 * 60;
  if (!/^[A-Za-z][A-Za-z0-9_/+-]*$/.test(text)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: text });
    return true;
  } catch {
    return false;
  }
}

const HHMM = 'A 24-hour time, HH:MM (00:00 to 23:59).';

/**
 * The server's checks on deliverAt and quietHours, in the form's words.
 * `lifetimeSeconds` is the task's duration when the form sets one: the
 * window must be shorter (the server's default duration it checks itself).
 */
export function validateLocalTime(form: LocalTimeForm, lifetimeSeconds?: number): LocalTimeErrors {
  const errors: LocalTimeErrors = {};
  if (form.localTimeOn) {
    if (minutesOf(form.localTime) === null) errors.localTime = HHMM;
    const windowMs = windowMsOf(form.window);
    if (windowMs === null) errors.window = 'A duration like 2h, 90m or 1h30m.';
    else if (windowMs < MINUTE_MS || windowMs > MAX_WINDOW_MS) errors.window = 'From 1 minute to 12 hours.';
    else if (lifetimeSeconds !== undefined && windowMs >= lifetimeSeconds * 1000)
      errors.window = 'The window must be shorter than the duration: the broadcast would expire inside it.';
    const zone = form.defaultTimeZone.trim();
    if (zone !== '' && !isTimeZone(zone))
      errors.defaultTimeZone = `“${zone}” is not a time zone: a zone name like Europe/Berlin, or an offset like +05:30.`;
  }
  if (form.quietOn) {
    const quiet = quietHoursError(form.quietFrom, form.quietTo);
    if (quiet !== undefined) errors.quietFrom = quiet;
  }
  return errors;
}

/** What is wrong with quiet hours from-until, in the form's words; undefined when the server would take them. */
export function quietHoursError(fromText: string, toText: string): string | undefined {
  const from = minutesOf(fromText);
  const to = minutesOf(toText);
  if (from === null) return HHMM;
  if (to === null) return `Until: ${HHMM}`;
  if (from === to) return 'Quiet from and until are equal: that is the whole day, nothing could land.';
  return undefined;
}

export interface DeliverAtRequest {
  localTime: string;
  window: string;
  missed: MissedChoice;
  defaultTimeZone?: string;
}

/** The request fields (the same on a task and a campaign's template); none when both are off. */
export function localTimeBody(form: LocalTimeForm): { deliverAt?: DeliverAtRequest; quietHours?: QuietHoursRequest } {
  const zone = form.defaultTimeZone.trim();
  return {
    ...(form.localTimeOn
      ? {
          deliverAt: {
            localTime: form.localTime.trim(),
            window: form.window.trim(),
            missed: form.missed,
            ...(zone === '' ? {} : { defaultTimeZone: zone }),
          },
        }
      : {}),
    ...(form.quietOn ? { quietHours: quietHoursRequest(form.quietFrom, form.quietTo, form.quietDuring) } : {}),
  };
}

/** The form field a refusal names ('deliverAt.window', 'template.quietHours', ...). */
export function localTimeFieldOf(serverField: string | undefined): LocalTimeField | undefined {
  switch (serverField?.replace(/^template\./, '')) {
    case 'deliverAt':
    case 'deliverAt.localTime':
      return 'localTime';
    case 'deliverAt.window':
      return 'window';
    case 'deliverAt.missed':
      return 'missed';
    case 'deliverAt.defaultTimeZone':
      return 'defaultTimeZone';
    case 'quietHours':
    case 'quietHours.hours':
      return 'quietFrom';
    case 'quietHours.during':
      return 'quietDuring';
    default:
      return undefined;
  }
}

/** A stored task's or template's settings back in the form (a clone starts from them). */
export function localTimeFormOf(
  deliverAt:
    | { localTime: string; windowMs?: number; window?: string; missed?: MissedChoice; defaultTimeZone?: string }
    | null
    | undefined,
  quietHours: QuietHoursAnswer | null | undefined,
): LocalTimeForm {
  const empty = emptyLocalTime();
  const quiet = quietPartsOf(quietHours);
  return {
    ...empty,
    ...(deliverAt
      ? {
          localTimeOn: true,
          localTime: deliverAt.localTime,
          window:
            deliverAt.window ?? (deliverAt.windowMs === undefined ? empty.window : windowText(deliverAt.windowMs)),
          missed: deliverAt.missed ?? 'next_day',
          defaultTimeZone: deliverAt.defaultTimeZone ?? '',
        }
      : {}),
    ...(quiet ? { quietOn: true, quietFrom: quiet.from, quietTo: quiet.to, quietDuring: quiet.during } : {}),
  };
}
