import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { ErrorBanner, Field } from '../../components/bits';
import { TimeZoneList } from '../../components/FireTimes';
import { QuietHoursRange } from '../../components/QuietHoursRange';
import {
  LOGIN_DELIVERY_TEXT,
  accountLocalTimeBody,
  accountLocalTimeFieldOf,
  draftOfAccountLocalTime,
  validateAccountLocalTime,
  type AccountLocalTimeAnswer,
  type AccountLocalTimeDraft,
  type AccountLocalTimeErrors,
  type LoginDelivery,
} from '../../lib/account-local-time-form';
import { ACCOUNT_ID } from '../../lib/broadcast-form';
import { quietHoursWords } from '../../lib/local-time-form';
import { operatorMessage } from '../../lib/operator-words';

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * An account's local-time defaults (docs/local-time.md, "Account defaults"):
 * the zone of recipients without a `tz`, quiet hours with what a push inside
 * them does, and what a login inside them does. Setting them is admin-only in
 * the API, and this panel sits on the admin-only page. Saving replaces all
 * three; a refusal lands under its field and changes nothing.
 */
export function LocalTimeDefaultsPanel() {
  const [accountDraft, setAccountDraft] = useState('');
  const [answer, setAnswer] = useState<AccountLocalTimeAnswer | null>(null);
  const [draft, setDraft] = useState<AccountLocalTimeDraft | null>(null);
  const [errors, setErrors] = useState<AccountLocalTimeErrors>({});
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState(false);

  const show = (next: AccountLocalTimeAnswer) => {
    setAnswer(next);
    setDraft(draftOfAccountLocalTime(next));
    setErrors({});
  };
  const path = (account: string) => `/api/v1/accounts/${encodeURIComponent(account)}/local-time`;

  const load = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const account = accountDraft.trim();
    if (!ACCOUNT_ID.test(account)) {
      setError(new Error(`"${account}" is not an account id (lowercase letters, digits and _)`));
      return;
    }
    try {
      show(await api<AccountLocalTimeAnswer>('GET', path(account)));
    } catch (e) {
      setError(e as Error);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (answer === null || draft === null) return;
    setError(null);
    setSaved(false);
    const found = validateAccountLocalTime(draft);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      show(await api<AccountLocalTimeAnswer>('PUT', path(answer.accountId), accountLocalTimeBody(draft)));
      setSaved(true);
    } catch (e) {
      // A refusal naming a field is said under it; anything else in the banner.
      const field = e instanceof ApiError ? accountLocalTimeFieldOf(e.field) : undefined;
      if (field !== undefined && e instanceof ApiError) setErrors({ [field]: operatorMessage(e) });
      else setError(e as Error);
    }
  };

  const set = <K extends keyof AccountLocalTimeDraft>(name: K, value: AccountLocalTimeDraft[K]) => {
    if (draft !== null) setDraft({ ...draft, [name]: value });
  };

  return (
    <section aria-labelledby="local-time-heading">
      <h2 id="local-time-heading">Account local time</h2>
      <form className="admin-form inline" onSubmit={(e) => void load(e)}>
        <Field label="Account id" htmlFor="local-time-account">
          <input id="local-time-account" value={accountDraft} onChange={(e) => setAccountDraft(e.target.value)} />
        </Field>
        <button type="submit">Show local time</button>
      </form>
      <ErrorBanner error={error} />
      {answer && draft && (
        <form
          className="admin-form"
          onSubmit={(e) => void save(e)}
          aria-label={`Local-time defaults of ${answer.accountId}`}
        >
          <p className="muted" data-local-time-now>
            {answer.accountId} now: default zone {answer.defaultTimeZone ?? 'none (UTC)'}; quiet hours{' '}
            {quietHoursWords(answer.quietHours)}; a login inside quiet hours:{' '}
            {LOGIN_DELIVERY_TEXT[answer.loginDelivery]}. Tasks created afterwards take them; tasks already created keep
            theirs.
          </p>
          <Field
            label="Default zone"
            htmlFor="account-defaultTimeZone"
            error={errors.defaultTimeZone}
            hint="For recipients without a tz, in the account's local-time tasks: a zone name like Europe/Berlin, or an offset like +05:30. Empty: UTC."
          >
            <input
              id="account-defaultTimeZone"
              list="time-zones"
              autoComplete="off"
              placeholder="UTC"
              value={draft.defaultTimeZone}
              onChange={(e) => set('defaultTimeZone', e.target.value)}
            />
            <TimeZoneList />
          </Field>
          <Field
            label="Quiet hours"
            htmlFor="account-quietOn"
            hint="Every task of the account without its own quiet hours keeps these, in each recipient's local time."
          >
            <label className="check">
              <input
                id="account-quietOn"
                type="checkbox"
                checked={draft.quietOn}
                onChange={(e) => set('quietOn', e.target.checked)}
              />{' '}
              Default quiet hours
            </label>
          </Field>
          {draft.quietOn && (
            <div className="sub-fields">
              <QuietHoursRange idPrefix="account-" value={draft} errors={errors} set={set} modes />
            </div>
          )}
          <Field
            label="A login inside quiet hours"
            htmlFor="account-loginDelivery"
            error={errors.loginDelivery}
            hint="For the account's tasks with quiet hours, their own or these; copied onto each task when it is created."
          >
            <select
              id="account-loginDelivery"
              value={draft.loginDelivery}
              onChange={(e) => set('loginDelivery', e.target.value as LoginDelivery)}
            >
              {(Object.keys(LOGIN_DELIVERY_TEXT) as LoginDelivery[]).map((choice) => (
                <option key={choice} value={choice}>
                  {capital(LOGIN_DELIVERY_TEXT[choice])}
                </option>
              ))}
            </select>
          </Field>
          <button className="primary" type="submit">
            Save local time
          </button>
          {saved && (
            <span role="status" className="saved">
              Saved.
            </span>
          )}
        </form>
      )}
    </section>
  );
}
