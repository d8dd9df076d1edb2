import { emptyForm, type BroadcastForm, type FieldErrors } from '../lib/broadcast-form';
import type { LocalTimeForm } from '../lib/local-time-form';
import type { RolloutForm } from '../lib/rollout-form';
import { LocalTimeFields, useAccountLocalTime } from './LocalTimeFields';
import { RolloutFields } from './RolloutFields';
import { AdvancedSection } from './AdvancedSection';

/** The form's own fields outside this section: an error on any other is in here. */
const BASIC_FIELDS = new Set(Object.keys(emptyForm('')));

/** What the advanced settings set, in a few words, for the closed section's summary ('' when nothing). */
export function advancedSummary(local: LocalTimeForm, rollout?: RolloutForm): string {
  return [
    local.localTimeOn && `local time ${local.localTime}`,
    local.quietOn &&
      `quiet ${local.quietFrom}–${local.quietTo}${local.quietDuring === 'offline' ? ' (queued for login)' : ''}`,
    rollout !== undefined && rollout.collapseKey.trim() !== '' && 'collapse key',
    rollout?.canaryOn && `canary ${rollout.canarySample}${rollout.canaryBy === 'percent' ? '%' : ''}`,
    rollout?.variantsOn && `${rollout.variants.length} variants`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The new-broadcast form's "Advanced delivery": local time, quiet hours,
 * collapse key, canary, A/B variants. Closed by default so the simple form
 * stays simple (AdvancedSection opens it on an error).
 */
export function AdvancedDelivery({
  form,
  errors,
  set,
}: {
  form: BroadcastForm;
  errors: FieldErrors;
  set: <K extends keyof BroadcastForm>(name: K, value: BroadcastForm[K]) => void;
}) {
  const hasError = Object.keys(errors).some((field) => !BASIC_FIELDS.has(field));
  const account = useAccountLocalTime(form.accountId);
  const summary = advancedSummary(form.local, form.rollout);
  return (
    <AdvancedSection
      title="Advanced delivery"
      summary={summary === '' ? 'local time, quiet hours, collapse key, canary, A/B variants' : summary}
      hasError={hasError}
    >
      <LocalTimeFields
        form={form.local}
        errors={errors}
        set={(name, value) => set('local', { ...form.local, [name]: value })}
        account={account}
        quietModes
      />
      <RolloutFields
        form={form.rollout}
        errors={errors}
        set={(name, value) => set('rollout', { ...form.rollout, [name]: value })}
      />
    </AdvancedSection>
  );
}
