import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import type { Campaign, NoResend } from '../api/types';
import { useNow } from '../hooks';
import { Field } from './bits';
import { FireTimeList, TimeZoneList, useCronPreview } from './FireTimes';
import { operatorMessage } from '../lib/operator-words';
import { noResendOf, noResendWindowError } from '../lib/campaign-form';
import { NoResendField } from './NoResendField';

type Draft = {
  name: string;
  cron: string;
  timeZone: string;
  title: string;
  body: string;
  noResendScope: NoResend['scope'];
  noResendWindowDays: string;
};
type DraftErrors = Partial<Record<keyof Draft, string>>;

const FIELD_OF: Record<string, keyof Draft> = {
  name: 'name',
  cron: 'cron',
  timeZone: 'timeZone',
  'template.content.title': 'title',
  'template.content.body': 'body',
  'template.noResend.scope': 'noResendScope',
  'template.noResend.window': 'noResendWindowDays',
};

/** The draft's window in days: a stored window of whole days, else the form's default of 7. */
const windowDaysOf = (noResend: NoResend | undefined) =>
  noResend?.scope === 'window' && noResend.window.endsWith('d') ? noResend.window.slice(0, -1) : '7';

/**
 * Changing a campaign (PATCH /api/v1/campaigns/:id): its name, schedule and
 * message, with the next five fire times of the new schedule as it is
 * typed. The list, priority and duration stay as they are.
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
  const [draft, setDraft] = useState<Draft>({
    name: campaign.name,
    cron: campaign.cron,
    timeZone: campaign.timeZone,
    title: campaign.template.content.title ?? '',
    body: campaign.template.content.body,
    noResendScope: campaign.template.noResend?.scope ?? 'content',
    noResendWindowDays: windowDaysOf(campaign.template.noResend),
  });
  const [errors, setErrors] = useState<DraftErrors>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { preview, error: previewError } = useCronPreview(draft.cron, draft.timeZone);
  const now = useNow(5000);
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft({ ...draft, [name]: value });
  const previewField = previewError ? (FIELD_OF[previewError.field ?? ''] ?? 'cron') : undefined;
  const errorOf = (name: keyof Draft) =>
    errors[name] ?? (previewField === name ? operatorMessage(previewError!) : undefined);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const found: DraftErrors = {};
    if (draft.name.trim() === '') found.name = 'Name the campaign.';
    if (draft.body.trim() === '') found.body = 'Write the message text.';
    const windowError = noResendWindowError(draft);
    if (windowError !== undefined) found.noResendWindowDays = windowError;
    setErrors(found);
    if (Object.keys(found).length > 0 || previewError) return;
    setBusy(true);
    setFailure(null);
    const t = campaign.template;
    try {
      const saved = await api<Campaign>('PATCH', `/api/v1/campaigns/${campaign.id}`, {
        name: draft.name.trim(),
        cron: draft.cron.trim(),
        timeZone: draft.timeZone.trim(),
        template: {
          listId: t.listId,
          content: {
            ...(draft.title.trim() === '' ? { body: draft.body } : { title: draft.title, body: draft.body }),
            ...(t.content.template === true ? { template: true } : {}),
          },
          priority: t.priority,
          ...(t.ttlSeconds === undefined ? {} : { ttlSeconds: t.ttlSeconds }),
          ...(t.targeting === undefined ? {} : { targeting: t.targeting }),
          noResend: noResendOf(draft),
        },
      });
      onSaved(saved);
    } catch (e) {
      const field = e instanceof ApiError ? FIELD_OF[e.field ?? ''] : undefined;
      if (field) setErrors({ [field]: operatorMessage(e as ApiError) });
      else setFailure(e instanceof ApiError ? operatorMessage(e) : (e as Error).message);
      setBusy(false);
    }
  };

  return (
    <form className="panel" onSubmit={save} noValidate>
      <h2>Change the campaign</h2>
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
