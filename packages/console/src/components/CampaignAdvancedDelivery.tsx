import type { AccountLocalTime } from './LocalTimeFields';
import { LocalTimeFields } from './LocalTimeFields';
import { RolloutFields } from './RolloutFields';
import { AdvancedSection } from './AdvancedSection';
import { advancedSummary } from './AdvancedDelivery';
import { localTimeErrorsOf, type LocalTimeForm } from '../lib/local-time-form';
import { rolloutErrorsOf, type RolloutForm } from '../lib/rollout-form';

/**
 * A campaign form's "Advanced delivery" (new and edit): each firing's local
 * time, quiet hours (held or queued for login), collapse key, canary and A/B
 * variants, with the new-broadcast form's fields (docs/campaigns.md,
 * "Template"). Closed until something is set or refused.
 */
export function CampaignAdvancedDelivery({
  local,
  rollout,
  errors,
  setLocal,
  setRollout,
  account,
}: {
  local: LocalTimeForm;
  rollout: RolloutForm;
  errors: Readonly<Record<string, string | undefined>>;
  setLocal: (next: LocalTimeForm) => void;
  setRollout: (next: RolloutForm) => void;
  account: AccountLocalTime | undefined;
}) {
  const localErrors = localTimeErrorsOf(errors);
  const rolloutErrors = rolloutErrorsOf(errors);
  return (
    <AdvancedSection
      title="Advanced delivery"
      summary={
        advancedSummary(local, rollout) || "each firing's local time, quiet hours, collapse key, canary, A/B variants"
      }
      hasError={Object.keys(localErrors).length + Object.keys(rolloutErrors).length > 0}
    >
      <LocalTimeFields
        form={local}
        errors={localErrors}
        set={(name, value) => setLocal({ ...local, [name]: value })}
        account={account}
        zoneList={false}
        quietModes
      />
      <RolloutFields
        form={rollout}
        errors={rolloutErrors}
        set={(name, value) => setRollout({ ...rollout, [name]: value })}
      />
    </AdvancedSection>
  );
}
