import { api } from '../api/client';
import { usePoll } from '../hooks';
import {
  MISSED_CHOICES,
  MISSED_TEXT,
  quietHoursWords,
  type LocalTimeErrors,
  type LocalTimeForm,
  type QuietHoursAnswer,
} from '../lib/local-time-form';
import { Field } from './bits';
import { TimeZoneList } from './FireTimes';
import { QuietHoursRange } from './QuietHoursRange';

/** GET /api/v1/accounts/:id/local-time: what a task of the account keeps unless it sets its own. */
export interface AccountLocalTime {
  accountId: string;
  defaultTimeZone: string | null;
  /** 'HH:MM-HH:MM' (held), or { hours, during: 'offline' }; null: none. */
  quietHours: Exclude<QuietHoursAnswer, { from: string }> | null;
  /** A login inside a task's quiet hours delivers the inbox, or holds those tasks' entries for a later login. */
  loginDelivery: 'deliver' | 'hold';
}

/** The account's local-time defaults, or undefined while unknown (or not readable: the form works without them). */
export function useAccountLocalTime(accountId: string): AccountLocalTime | undefined {
  const { data } = usePoll<AccountLocalTime | undefined>(
    (signal) =>
      /^[a-z0-9_]{1,64}$/.test(accountId)
        ? api<AccountLocalTime>('GET', `/api/v1/accounts/${accountId}/local-time`, undefined, signal)
        : Promise.resolve(undefined),
    [accountId],
  );
  return data;
}

const MISSED_LABEL: Readonly<Record<string, string>> = {
  next_day: 'Next day at that time',
  skip: 'Skip them',
  now: 'Send at once',
};

/**
 * Local-time delivery and quiet hours (docs/local-time.md), each behind its
 * own checkbox: the new-broadcast and new-campaign forms' advanced part.
 * `account` is the account's defaults, said where they apply.
 */
export function LocalTimeFields({
  form,
  errors,
  set,
  account,
  zoneList = true,
  quietModes = false,
}: {
  form: LocalTimeForm;
  errors: LocalTimeErrors;
  set: <K extends keyof LocalTimeForm>(name: K, value: LocalTimeForm[K]) => void;
  account: AccountLocalTime | undefined;
  /** False where the page already has the zones' datalist (the campaign form's own time zone). */
  zoneList?: boolean;
  /** Offer "queue for the next login" inside quiet hours: tasks take it, a campaign's template only holds. */
  quietModes?: boolean;
}) {
  const accountZone = account?.defaultTimeZone ?? 'UTC';
  return (
    <>
      <Field
        label="Local time"
        htmlFor="localTimeOn"
        hint="Each recipient gets it at this time in their own zone (their tz attribute): Tokyo first, New York last."
      >
        <label className="check">
          <input
            id="localTimeOn"
            type="checkbox"
            checked={form.localTimeOn}
            onChange={(e) => set('localTimeOn', e.target.checked)}
          />{' '}
          Deliver at a local time
        </label>
      </Field>
      {form.localTimeOn && (
        <div className="sub-fields">
          <Field label="At" htmlFor="localTime" error={errors.localTime} hint="24-hour, in each recipient's zone.">
            <input
              id="localTime"
              className="short mono"
              placeholder="HH:MM"
              autoComplete="off"
              value={form.localTime}
              onChange={(e) => set('localTime', e.target.value)}
            />
          </Field>
          <Field
            label="Window"
            htmlFor="window"
            error={errors.window}
            hint="A zone whose time passed less than this long ago is still sent to, at once: 30m, 2h, 1h30m (up to 12h)."
          >
            <input
              id="window"
              className="short mono"
              autoComplete="off"
              value={form.window}
              onChange={(e) => set('window', e.target.value)}
            />
          </Field>
          <Field
            label="Zones past it"
            htmlFor="missed"
            error={errors.missed}
            hint={`Zones already past the time and window when it starts get it ${MISSED_TEXT[form.missed]}.`}
          >
            <select
              id="missed"
              value={form.missed}
              onChange={(e) => set('missed', e.target.value as LocalTimeForm['missed'])}
            >
              {MISSED_CHOICES.map((choice) => (
                <option key={choice} value={choice}>
                  {MISSED_LABEL[choice]}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="Default zone"
            htmlFor="defaultTimeZone"
            error={errors.defaultTimeZone}
            hint={`For recipients without a time zone: a zone name like Europe/Berlin, or an offset like +05:30. Empty: the account's (${accountZone}).`}
          >
            <input
              id="defaultTimeZone"
              list="time-zones"
              autoComplete="off"
              placeholder={accountZone}
              value={form.defaultTimeZone}
              onChange={(e) => set('defaultTimeZone', e.target.value)}
            />
            {zoneList && <TimeZoneList />}
          </Field>
        </div>
      )}
      <Field
        label="Quiet hours"
        htmlFor="quietOn"
        hint={
          account?.quietHours
            ? `The account's quiet hours, ${quietHoursWords(account.quietHours)}, apply unless set here.`
            : quietModes
              ? 'No push lands inside them, in each recipient’s local time: it is held to their end or queued for the next login.'
              : 'Pushes that would land inside them are held to their end, in each recipient’s local time.'
        }
      >
        <label className="check">
          <input
            id="quietOn"
            type="checkbox"
            checked={form.quietOn}
            onChange={(e) => set('quietOn', e.target.checked)}
          />{' '}
          Keep quiet hours
        </label>
      </Field>
      {form.quietOn && (
        <div className="sub-fields">
          <QuietHoursRange value={form} errors={errors} set={set} modes={quietModes} />
        </div>
      )}
    </>
  );
}
