/**
 * An account's local-time defaults (docs/local-time.md, "Account defaults")
 * in the administration page's form: the answer of GET
 * /api/v1/accounts/:id/local-time as the form shows it, the checks the
 * server makes (said before anything is sent; the server checks again and
 * its refusal lands on the same field), and the PUT body, which replaces
 * all three. Pure.
 */
import {
  isTimeZone,
  quietHoursError,
  quietHoursRequest,
  quietPartsOf,
  type QuietDuring,
  type QuietHoursRequest,
} from './local-time-form';

export type LoginDelivery = 'deliver' | 'hold';

/** A login inside quiet hours, in the operator's words, by `loginDelivery`. */
export const LOGIN_DELIVERY_TEXT: Readonly<Record<LoginDelivery, string>> = {
  deliver: 'deliver the inbox',
  hold: 'keep the inbox for later',
};

/** GET and PUT /api/v1/accounts/:id/local-time: what they answer. */
export interface AccountLocalTimeAnswer {
  accountId: string;
  defaultTimeZone: string | null;
  quietHours: string | { hours: string; during: QuietDuring } | null;
  loginDelivery: LoginDelivery;
}

export interface AccountLocalTimeDraft {
  /** Empty: none (UTC). */
  defaultTimeZone: string;
  quietOn: boolean;
  quietFrom: string;
  quietTo: string;
  quietDuring: QuietDuring;
  loginDelivery: LoginDelivery;
}

export type AccountLocalTimeField = keyof AccountLocalTimeDraft;
export type AccountLocalTimeErrors = Partial<Record<AccountLocalTimeField, string>>;

export function draftOfAccountLocalTime(answer: AccountLocalTimeAnswer): AccountLocalTimeDraft {
  const quiet = quietPartsOf(answer.quietHours);
  return {
    defaultTimeZone: answer.defaultTimeZone ?? '',
    quietOn: quiet !== null,
    quietFrom: quiet?.from ?? '22:00',
    quietTo: quiet?.to ?? '08:00',
    quietDuring: quiet?.during ?? 'hold',
    loginDelivery: answer.loginDelivery,
  };
}

/** The server's checks on the three, in the form's words. */
export function validateAccountLocalTime(draft: AccountLocalTimeDraft): AccountLocalTimeErrors {
  const errors: AccountLocalTimeErrors = {};
  const zone = draft.defaultTimeZone.trim();
  if (zone !== '' && !isTimeZone(zone))
    errors.defaultTimeZone = `“${zone}” is not a time zone: a zone name like Europe/Berlin, or an offset like +05:30.`;
  if (draft.quietOn) {
    const quiet = quietHoursError(draft.quietFrom, draft.quietTo);
    if (quiet !== undefined) errors.quietFrom = quiet;
  }
  return errors;
}

/** The PUT body: every field said, null for none, since a PUT replaces all three. */
export function accountLocalTimeBody(draft: AccountLocalTimeDraft): {
  defaultTimeZone: string | null;
  quietHours: QuietHoursRequest | null;
  loginDelivery: LoginDelivery;
} {
  const zone = draft.defaultTimeZone.trim();
  return {
    defaultTimeZone: zone === '' ? null : zone,
    quietHours: draft.quietOn ? quietHoursRequest(draft.quietFrom, draft.quietTo, draft.quietDuring) : null,
    loginDelivery: draft.loginDelivery,
  };
}

/** The form field a refusal names (defaultTimeZone, quietHours.hours, loginDelivery, ...). */
export function accountLocalTimeFieldOf(serverField: string | undefined): AccountLocalTimeField | undefined {
  switch (serverField) {
    case 'defaultTimeZone':
      return 'defaultTimeZone';
    case 'quietHours':
    case 'quietHours.hours':
      return 'quietFrom';
    case 'quietHours.during':
      return 'quietDuring';
    case 'loginDelivery':
      return 'loginDelivery';
    default:
      return undefined;
  }
}
