import { useEffect, useState } from 'react';
import type { BroadcastForm, FieldErrors } from '../lib/broadcast-form';
import type { LocalTimeForm } from '../lib/local-time-form';
import type { RolloutForm } from '../lib/rollout-form';
import { LocalTimeFields, useAccountLocalTime } from './LocalTimeFields';
import { RolloutFields } from './RolloutFields';

const BASIC_FIELDS = new Set([
  'accountId',
  'audience',
  'listId',
  'title',
  'body',
  'personalised',
  'sampleUin',
  'when',
  'sendAt',
  'priority',
  'durationHours',
  'preDeliver',
  'displayAt',
  'speed',
]);

/** What the advanced settings set, in a few words, for the closed section's summary ('' when nothing). */
export function advancedSummary(local: LocalTimeForm, rollout: RolloutForm): string {
  return [
    local.localTimeOn && `local time ${local.localTime}`,
    local.quietOn && `quiet ${local.quietFrom}–${local.quietTo}`,
    rollout.collapseKey.trim() !== '' && 'collapse key',
    rollout.canaryOn && `canary ${rollout.canarySample}${rollout.canaryBy === 'percent' ? '%' : ''}`,
    rollout.variantsOn && `${rollout.variants.length} variants`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The new-broadcast form's "Advanced delivery": local time, quiet hours,
 * collapse key, canary, A/B variants. Closed by default so the simple form
 * stays simple; it opens by itself when one of its fields has an error (the
 * console's check or the server's refusal), so no error hides in it.
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
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (hasError) setOpen(true);
  }, [hasError]);
  const account = useAccountLocalTime(form.accountId);
  const summary = advancedSummary(form.local, form.rollout);
  return (
    <details
      className="panel advanced"
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <h2>Advanced delivery</h2>
        <span className="small muted" data-advanced-summary>
          {summary === '' ? 'local time, quiet hours, collapse key, canary, A/B variants' : summary}
        </span>
      </summary>
      <LocalTimeFields
        form={form.local}
        errors={errors}
        set={(name, value) => set('local', { ...form.local, [name]: value })}
        account={account}
      />
      <RolloutFields
        form={form.rollout}
        errors={errors}
        set={(name, value) => set('rollout', { ...form.rollout, [name]: value })}
      />
    </details>
  );
}
