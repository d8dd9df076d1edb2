import { useRef, useState, type FormEvent } from 'react';
import { api, ApiError, newIdempotencyKey } from '../api/client';
import type { Campaign } from '../api/types';
import { ErrorBanner, Field } from '../components/bits';
import { NoResendField } from '../components/NoResendField';
import { useAccountLocalTime } from '../components/LocalTimeFields';
import { CampaignAdvancedDelivery } from '../components/CampaignAdvancedDelivery';
import { DailyReach } from '../components/DailyReach';
import { FireTimeList, TimeZoneList, useCronPreview } from '../components/FireTimes';
import { ListUpload } from '../components/ListUpload';
import { useNow, useTitle } from '../hooks';
import {
  campaignFieldOf,
  emptyCampaign,
  toCampaignBody,
  validateCampaign,
  type CampaignErrors,
  type CampaignField,
  type CampaignForm,
} from '../lib/campaign-form';
import { estimateReach } from '../lib/campaign-reach';
import { operatorMessage } from '../lib/operator-words';
import { Link, navigate } from '../router';
import { useSession } from '../session';

/**
 * A new cron campaign: schedule (with the next five fire times as the
 * operator types, from the server), the template each firing sends, and
 * whether it starts enabled.
 */
export function NewCampaign() {
  useTitle('New campaign');
  const { account } = useSession();
  const [form, setForm] = useState<CampaignForm>(() =>
    emptyCampaign(account, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'),
  );
  const [errors, setErrors] = useState<CampaignErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Error | null>(null);
  // The uploaded list's size: each firing sends to all of it.
  const [listCount, setListCount] = useState<number | null>(null);
  const { preview, error: previewError, checking } = useCronPreview(form.cron, form.timeZone);
  const now = useNow(5000);
  // One key per campaign the operator creates: a retry after a lost answer reuses it, so the server answers with
  // the campaign its first try created instead of storing a second; changing the form makes it another campaign.
  const idempotencyKey = useRef<string | null>(null);

  const set = <K extends keyof CampaignForm>(name: K, value: CampaignForm[K]) => {
    const next = { ...form, [name]: value };
    setForm(next);
    idempotencyKey.current = null;
    if (submitted) setErrors(validateCampaign(next));
  };
  // The live preview's refusal shows under the field it names, before any submit.
  const previewField = previewError ? (campaignFieldOf(previewError.field) ?? 'cron') : undefined;
  const accountLocalTime = useAccountLocalTime(form.accountId);
  const errorOf = (name: CampaignField) =>
    errors[name] ?? (previewField === name ? operatorMessage(previewError!) : undefined);
  const reach = preview && listCount !== null ? estimateReach(preview.nextFireTimes, listCount) : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setFailure(null);
    const found = validateCampaign(form);
    setErrors(found);
    if (Object.keys(found).length > 0 || previewError) return;
    setBusy(true);
    try {
      idempotencyKey.current ??= newIdempotencyKey();
      const created = await api<Campaign>('POST', '/api/v1/campaigns', toCampaignBody(form), undefined, {
        'idempotency-key': idempotencyKey.current,
      });
      navigate(`/campaigns/${created.id}`);
    } catch (e) {
      const field = e instanceof ApiError ? campaignFieldOf(e.field) : undefined;
      if (field) setErrors({ [field]: operatorMessage(e as ApiError) });
      else setFailure(e as Error);
      setBusy(false);
    }
  };

  return (
    <section>
      <p className="crumbs">
        <Link to="/campaigns">Campaigns</Link> / new
      </p>
      <div className="page-head">
        <h1>New campaign</h1>
        <span className="muted">
          as account <strong>{form.accountId || '—'}</strong>
        </span>
      </div>
      <form onSubmit={submit} noValidate className="form-grid side-by-side">
        <div className="panel">
          <h2>Schedule</h2>
          {errors.accountId && (
            <div className="field-error" role="alert" data-field="accountId">
              {errors.accountId}
            </div>
          )}
          <Field label="Name" htmlFor="name" error={errorOf('name')}>
            <input
              id="name"
              value={form.name}
              onChange={(e) => set('name', e.target.value)}
              placeholder="Morning digest"
            />
          </Field>
          <Field
            label="Cron"
            htmlFor="cron"
            error={errorOf('cron')}
            hint={
              <>
                minute hour day-of-month month day-of-week (an optional second first), or @daily, @hourly…
                (docs/campaigns.md)
              </>
            }
          >
            <input id="cron" className="mono" value={form.cron} onChange={(e) => set('cron', e.target.value)} />
          </Field>
          <Field
            label="Time zone"
            htmlFor="timeZone"
            error={errorOf('timeZone')}
            hint="The zone the expression is read in; daylight-saving changes follow it."
          >
            <input
              id="timeZone"
              list="time-zones"
              value={form.timeZone}
              onChange={(e) => set('timeZone', e.target.value.trim())}
            />
            <TimeZoneList />
          </Field>
          <Field label="Next five" hint={checking ? 'checking…' : undefined}>
            <div aria-label="next fire times">
              {preview ? (
                <FireTimeList times={preview.nextFireTimes} timeZone={preview.timeZone} now={now} />
              ) : (
                <span className="muted small">—</span>
              )}
            </div>
          </Field>
          <Field
            label="Daily reach"
            hint={
              reach
                ? "From the next fire times and the list: the saved campaign shows the server's projection."
                : 'Upload the list to see how many people this reaches a day.'
            }
          >
            <DailyReach reach={reach} estimate />
          </Field>
          <Field label="Enabled">
            <label className="check">
              <input type="checkbox" checked={form.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Fire
              on schedule as soon as it is saved
            </label>
          </Field>
        </div>
        <div className="panel">
          <h2>Template</h2>
          <Field label="List file" htmlFor="listFile" hint="Every firing sends to this list.">
            <ListUpload
              key={form.accountId}
              accountId={form.accountId}
              onUploaded={(list) => {
                set('listId', list?.id ?? '');
                setListCount(list?.count ?? null);
              }}
              error={errors.listId}
            />
          </Field>
          <Field label="Title" htmlFor="title" error={errorOf('title')}>
            <input id="title" value={form.title} onChange={(e) => set('title', e.target.value)} />
          </Field>
          <Field label="Message" htmlFor="body" error={errorOf('body')}>
            <textarea id="body" rows={4} value={form.body} onChange={(e) => set('body', e.target.value)} />
          </Field>
          <Field label="Priority">
            <div className="choices inline">
              <label className="check">
                <input
                  type="radio"
                  name="priority"
                  checked={form.priority === 'normal'}
                  onChange={() => set('priority', 'normal')}
                />{' '}
                Normal
              </label>
              <label className="check">
                <input
                  type="radio"
                  name="priority"
                  checked={form.priority === 'realtime'}
                  onChange={() => set('priority', 'realtime')}
                />{' '}
                Real-time
              </label>
            </div>
          </Field>
          <Field
            label="Duration"
            htmlFor="duration"
            error={errorOf('durationHours')}
            hint="Hours each firing's broadcast stays valid. Empty: the server's default."
          >
            <input
              id="duration"
              className="short"
              value={form.durationHours}
              onChange={(e) => set('durationHours', e.target.value)}
              placeholder="default"
            />{' '}
            <span className="muted">hours</span>
          </Field>
          <NoResendField
            scope={form.noResendScope}
            windowDays={form.noResendWindowDays}
            onScope={(scope) => set('noResendScope', scope)}
            onWindowDays={(days) => set('noResendWindowDays', days)}
            error={errorOf('noResendScope') ?? errorOf('noResendWindowDays')}
          />
        </div>
        <CampaignAdvancedDelivery
          local={form.local}
          rollout={form.rollout}
          errors={errors}
          setLocal={(next) => set('local', next)}
          setRollout={(next) => set('rollout', next)}
          account={accountLocalTime}
        />
        <ErrorBanner error={failure} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Create campaign'}
          </button>
        </div>
      </form>
    </section>
  );
}
