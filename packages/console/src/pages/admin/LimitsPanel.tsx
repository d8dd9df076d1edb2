import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { AccountLimits, Limits } from '../../api/admin-types';
import { ErrorBanner, Field } from '../../components/bits';
import { ACCOUNT_ID } from '../../lib/broadcast-form';
import { fmtInt } from '../../lib/format';

/** The override fields as the form shows them: minutes for the interval, a percentage for click-through. */
interface LimitsDraft {
  dailyBroadcasts: string;
  dailyRecipients: string;
  minIntervalMinutes: string;
  maxSpeed: string;
  clickThroughPercent: string;
}

function draftOf(answer: AccountLimits): LimitsDraft {
  const o = answer.override;
  return {
    dailyBroadcasts: o.dailyBroadcasts?.toString() ?? '',
    dailyRecipients: o.dailyRecipients?.toString() ?? '',
    minIntervalMinutes: o.minIntervalMs === undefined ? '' : String(o.minIntervalMs / 60_000),
    maxSpeed: o.maxSpeed?.toString() ?? '',
    clickThroughPercent: answer.clickThroughRate === null ? '' : String(answer.clickThroughRate * 100),
  };
}

/** A blank field follows the defaults; anything else must be a whole number in range. */
function overrideOf(draft: LimitsDraft): {
  override: Partial<Limits>;
  errors: Partial<Record<keyof LimitsDraft, string>>;
} {
  const override: Partial<Limits> = {};
  const errors: Partial<Record<keyof LimitsDraft, string>> = {};
  const whole = (key: keyof LimitsDraft, max: number, scale = 1): number | undefined => {
    const text = draft[key].trim();
    if (text === '') return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0 || n * scale > max || !Number.isInteger(n * scale)) {
      errors[key] = `a whole number from 0 to ${fmtInt(max / scale)}, or blank for the default`;
      return undefined;
    }
    return n * scale;
  };
  const set = <K extends keyof Limits>(name: K, value: number | undefined) => {
    if (value !== undefined) override[name] = value;
  };
  set('dailyBroadcasts', whole('dailyBroadcasts', 1_000_000));
  set('dailyRecipients', whole('dailyRecipients', 1e12));
  set('minIntervalMs', whole('minIntervalMinutes', 86_400_000, 60_000));
  set('maxSpeed', whole('maxSpeed', 1e8));
  return { override, errors };
}

/** Click-through as a percentage, 0..100; blank: unknown. */
function rateOf(text: string): { rate: number | null; error?: string } {
  if (text.trim() === '') return { rate: null };
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > 100) return { rate: null, error: 'a percentage from 0 to 100, or blank' };
  return { rate: n / 100 };
}

/**
 * An account's B-side limits (docs/account-quotas.md): what applies now, and
 * the admin's override of the defaults plus the last broadcast's
 * click-through rate, which scales them. Saving replaces the override.
 */
export function LimitsPanel() {
  const [accountDraft, setAccountDraft] = useState('');
  const [answer, setAnswer] = useState<AccountLimits | null>(null);
  const [draft, setDraft] = useState<LimitsDraft | null>(null);
  const [errors, setErrors] = useState<Partial<Record<keyof LimitsDraft, string>>>({});
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState(false);

  const show = (next: AccountLimits) => {
    setAnswer(next);
    setDraft(draftOf(next));
  };

  const load = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const account = accountDraft.trim();
    if (!ACCOUNT_ID.test(account)) {
      setErrors({});
      setError(new Error(`"${account}" is not an account id (lowercase letters, digits and _)`));
      return;
    }
    try {
      show(await api<AccountLimits>('GET', `/api/v1/accounts/${encodeURIComponent(account)}/limits`));
    } catch (e) {
      setError(e as Error);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (answer === null || draft === null) return;
    setError(null);
    setSaved(false);
    const { override, errors: found } = overrideOf(draft);
    const rate = rateOf(draft.clickThroughPercent);
    if (rate.error) found.clickThroughPercent = rate.error;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const path = `/api/v1/accounts/${encodeURIComponent(answer.accountId)}`;
    try {
      // The confirmation thresholds are part of the same override: keep them.
      const { confirmAbove, confirmWithinMs } = answer.override;
      const keep = {
        ...(confirmAbove === undefined ? {} : { confirmAbove }),
        ...(confirmWithinMs === undefined ? {} : { confirmWithinMs }),
      };
      await api('PUT', `${path}/limits`, { ...override, ...keep });
      show(await api<AccountLimits>('PUT', `${path}/click-through-rate`, { rate: rate.rate }));
      setSaved(true);
    } catch (e) {
      setError(e as Error);
    }
  };

  const input = (key: keyof LimitsDraft, label: string, hint: string, placeholder: number) => (
    <Field label={label} htmlFor={`limit-${key}`} hint={hint} error={errors[key]}>
      <input
        id={`limit-${key}`}
        inputMode="decimal"
        value={draft?.[key] ?? ''}
        placeholder={`default: ${fmtInt(placeholder)}`}
        onChange={(e) => draft && setDraft({ ...draft, [key]: e.target.value })}
      />
    </Field>
  );

  return (
    <section aria-labelledby="limits-heading">
      <h2 id="limits-heading">Account limits</h2>
      <form className="admin-form inline" onSubmit={(e) => void load(e)}>
        <Field label="Account id" htmlFor="limits-account">
          <input id="limits-account" value={accountDraft} onChange={(e) => setAccountDraft(e.target.value)} />
        </Field>
        <button type="submit">Show limits</button>
      </form>
      <ErrorBanner error={error} />
      {answer && draft && (
        <form className="admin-form" onSubmit={(e) => void save(e)} aria-label={`Limits of ${answer.accountId}`}>
          <p className="muted" data-limits-now>
            {answer.accountId} now: {fmtInt(answer.limits.dailyBroadcasts)} broadcasts and{' '}
            {fmtInt(answer.limits.dailyRecipients)} recipients a day, {fmtInt(answer.limits.minIntervalMs / 60_000)} min
            apart, speed up to {answer.limits.maxSpeed === 0 ? 'none set' : `${fmtInt(answer.limits.maxSpeed)}/s`}{' '}
            (factor {answer.factor.toFixed(2)}); used today: {fmtInt(answer.usage.broadcasts)} broadcasts,{' '}
            {fmtInt(answer.usage.recipients)} recipients.
          </p>
          {input('dailyBroadcasts', 'Daily broadcasts', 'Broadcasts a day', answer.base.dailyBroadcasts)}
          {input(
            'dailyRecipients',
            'Daily recipients',
            'Recipients a day, all broadcasts together',
            answer.base.dailyRecipients,
          )}
          {input(
            'minIntervalMinutes',
            'Minimum interval (minutes)',
            'Between two broadcasts',
            answer.base.minIntervalMs / 60_000,
          )}
          {input(
            'maxSpeed',
            'Maximum speed (recipients/s)',
            '0: the account may not set a speed',
            answer.base.maxSpeed,
          )}
          <Field
            label="Click-through (%)"
            htmlFor="limit-clickThroughPercent"
            hint="Of the last broadcast; scales the limits. Blank: unknown"
            error={errors.clickThroughPercent}
          >
            <input
              id="limit-clickThroughPercent"
              inputMode="decimal"
              value={draft.clickThroughPercent}
              onChange={(e) => setDraft({ ...draft, clickThroughPercent: e.target.value })}
            />
          </Field>
          <button className="primary" type="submit">
            Save limits
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
