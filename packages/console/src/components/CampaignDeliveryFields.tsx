import type { Campaign, PriorityClass } from '../api/types';
import { fmtInt } from '../lib/format';
import type { CampaignDraft, DraftErrors } from '../lib/campaign-edit';
import { Field } from './bits';
import { ListUpload } from './ListUpload';

/**
 * The edit form's delivery part: the list each firing sends to (kept, or
 * replaced by an upload), the priority, and the duration in hours, as the
 * new-broadcast form speaks of them.
 */
export function CampaignDeliveryFields({
  campaign,
  draft,
  errors,
  set,
}: {
  campaign: Campaign;
  draft: CampaignDraft;
  errors: DraftErrors;
  set: <K extends keyof CampaignDraft>(name: K, value: CampaignDraft[K]) => void;
}) {
  const current = campaign.template.listId;
  const count = campaign.projectedDailyReach?.recipientsPerFiring;
  return (
    <>
      <Field
        label="List file"
        htmlFor="listFile"
        hint={
          <span data-testid="current-list">
            Now: list <code>{current}</code>
            {count != null && ` (${fmtInt(count)} recipients)`}. Upload a file to send the next firings to another list.
          </span>
        }
      >
        <ListUpload
          accountId={campaign.accountId}
          // Until an upload succeeds, the campaign keeps its list.
          onUploaded={(list) => set('listId', list?.id ?? current)}
          error={errors.listId}
        />
      </Field>
      <Field label="Priority" error={errors.priority}>
        <div className="choices inline" role="radiogroup" aria-label="Priority">
          {(
            [
              ['normal', 'Normal'],
              ['realtime', 'Real-time'],
            ] as [PriorityClass, string][]
          ).map(([value, label]) => (
            <label className="check" key={value}>
              <input
                type="radio"
                name="edit-priority"
                checked={draft.priority === value}
                onChange={() => set('priority', value)}
              />{' '}
              {label}
            </label>
          ))}
        </div>
      </Field>
      <Field
        label="Duration"
        htmlFor="edit-duration"
        error={errors.durationHours}
        hint="Hours each firing's broadcast stays valid. Empty: the server's default."
      >
        <input
          id="edit-duration"
          className="short"
          value={draft.durationHours}
          onChange={(e) => set('durationHours', e.target.value)}
          placeholder="default"
        />{' '}
        <span className="muted">hours</span>
      </Field>
    </>
  );
}
