import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import type { Campaign } from '../api/types';
import { useNow } from '../hooks';
import { Field } from './bits';
import { CampaignDeliveryFields } from './CampaignDeliveryFields';
import { FireTimeList, TimeZoneList, useCronPreview } from './FireTimes';
import { operatorMessage } from '../lib/operator-words';
import {
  draftErrorText,
  draftFieldOf,
  draftOf,
  patchOf,
  validateDraft,
  type CampaignDraft,
  type DraftErrors,
  type DraftField,
} from '../lib/campaign-edit';
import { NoResendField } from './NoResendField';
import { useAccountLocalTime } from './LocalTimeFields';
import { CampaignAdvancedDelivery } from './CampaignAdvancedDelivery';

/**
 * Changing a campaign (PATCH /api/v1/campaigns/:id): its name, schedule,
 * message, list, priority, duration, local time, quiet hours, collapse key, canary and variants, with the next
 * five fire times of the
 * new schedule as it is typed. A refusal lands on the field it names, in the
 * form's words.
 */
export function CampaignEditor({
  campaign,
  onSaved,
  onCancel,
}: {
  campaign: Campaign;
  onSaved: (c: Campaign) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign));
  const [errors, setErrors] = useState<DraftErrors>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { preview, error: previewError } = useCronPreview(draft.cron, draft.timeZone);
  const now = useNow(5000);
  const set = <K extends keyof CampaignDraft>(name: K, value: CampaignDraft[K]) =>
    setDraft((current) => ({ ...current, [name]: value }));
  const previewField = previewError ? (draftFieldOf(previewError.field) ?? 'cron') : undefined;
  const accountLocalTime = useAccountLocalTime(campaign.accountId);
  const errorOf = (name: DraftField) =>
    errors[name] ?? (previewField === name ? operatorMessage(previewError!) : undefined);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateDraft(draft);
    setErrors(found);
    if (Object.keys(found).length > 0 || previewError) return;
    setBusy(true);
    setFailure(null);
    try {
      onSaved(await api<Campaign>('PATCH', `/api/v1/campaigns/${campaign.id}`, patchOf(campaign, draft)));
    } catch (e) {
      const field = e instanceof ApiError ? draftFieldOf(e.field) : undefined;
      if (field)
        setErrors({
          [field]:
            field === 'cron' ? operatorMessage(e as ApiError) : draftErrorText(e as ApiError, campaign.accountId),
        });
      else setFailure(e instanceof ApiError ? operatorMessage(e) : (e as Error).message);
      setBusy(false);
    }
  };

  return (
    <form className="panel" onSubmit={save} noValidate aria-label="Change the campaign">
      <h2>Change the campaign</h2>
      <div className="form-grid side-by-side">
        <div>
          <Field label="Name" htmlFor="edit-name" error={errorOf('name')}>
            <input id="edit-name" value={draft.name} onChange={(e) => set('name', e.target.value)} />
          </Field>
          <Field label="Cron" htmlFor="edit-cron" error={errorOf('cron')}>
            <input id="edit-cron" className="mono" value={draft.cron} onChange={(e) => set('cron', e.target.value)} />
          </Field>
          <Field label="Time zone" htmlFor="edit-zone" error={errorOf('timeZone')}>
            <input
              id="edit-zone"
              list="time-zones"
              value={draft.timeZone}
              onChange={(e) => set('timeZone', e.target.value.trim())}
            />
            <TimeZoneList />
          </Field>
          <Field label="Next five">
            {preview ? (
              <FireTimeList times={preview.nextFireTimes} timeZone={preview.timeZone} now={now} />
            ) : (
              <span className="muted small">—</span>
            )}
          </Field>
          <CampaignDeliveryFields campaign={campaign} draft={draft} errors={errors} set={set} />
        </div>
        <div>
          <Field label="Title" htmlFor="edit-title" error={errorOf('title')}>
            <input id="edit-title" value={draft.title} onChange={(e) => set('title', e.target.value)} />
          </Field>
          <Field label="Message" htmlFor="edit-body" error={errorOf('body')}>
            <textarea id="edit-body" rows={3} value={draft.body} onChange={(e) => set('body', e.target.value)} />
          </Field>
          <NoResendField
            scope={draft.noResendScope}
            windowDays={draft.noResendWindowDays}
            onScope={(scope) => set('noResendScope', scope)}
            onWindowDays={(days) => set('noResendWindowDays', days)}
            error={errorOf('noResendScope') ?? errorOf('noResendWindowDays')}
          />
        </div>
      </div>
      <CampaignAdvancedDelivery
        local={draft.local}
        rollout={draft.rollout}
        errors={errors}
        setLocal={(next) => set('local', next)}
        setRollout={(next) => set('rollout', next)}
        account={accountLocalTime}
      />
      {failure && (
        <div className="banner error" role="alert">
          {failure}
        </div>
      )}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Discard
        </button>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
