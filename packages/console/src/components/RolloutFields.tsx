import {
  MAX_VARIANTS,
  MIN_VARIANTS,
  newVariant,
  shareTotal,
  type RolloutErrors,
  type RolloutForm,
  type VariantRow,
} from '../lib/rollout-form';
import { Field } from './bits';

/** A short box for a number as typed (a percent, minutes, a count): the form's checks judge the text. */
function NumberInput({
  id,
  value,
  onChange,
  whole = false,
  placeholder,
}: {
  id: string;
  value: string;
  onChange: (text: string) => void;
  /** Whole numbers only: a phone shows digits without a decimal point. */
  whole?: boolean;
  placeholder?: string;
}) {
  return (
    <input
      id={id}
      className="short"
      inputMode={whole ? 'numeric' : 'decimal'}
      autoComplete="off"
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

type Set = <K extends keyof RolloutForm>(name: K, value: RolloutForm[K]) => void;

/**
 * The collapse key, the canary and the A/B variants with their holdout
 * (docs/delivery.md "Collapse keys", docs/rollouts.md), the canary and the
 * variants each behind a checkbox.
 */
export function RolloutFields({ form, errors, set }: { form: RolloutForm; errors: RolloutErrors; set: Set }) {
  return (
    <>
      <Field
        label="Collapse key"
        htmlFor="collapseKey"
        error={errors.collapseKey}
        hint="A newer broadcast of this account with the same key replaces this one in offline inboxes: a user who logs in gets only the newest."
      >
        <input
          id="collapseKey"
          className="mono"
          placeholder="none, e.g. match:1234"
          autoComplete="off"
          spellCheck={false}
          value={form.collapseKey}
          onChange={(e) => set('collapseKey', e.target.value)}
        />
      </Field>
      <CanaryFields form={form} errors={errors} set={set} />
      <VariantFields form={form} errors={errors} set={set} />
    </>
  );
}

function CanaryFields({ form, errors, set }: { form: RolloutForm; errors: RolloutErrors; set: Set }) {
  return (
    <>
      <Field
        label="Canary"
        htmlFor="canaryOn"
        error={errors.canary}
        hint="Sends to a random sample first and holds; the rest goes only if the channel's rejections and failures stay under the thresholds (and, if set, click-through above its minimum), else the broadcast pauses itself."
      >
        <label className="check">
          <input
            id="canaryOn"
            type="checkbox"
            checked={form.canaryOn}
            onChange={(e) => set('canaryOn', e.target.checked)}
          />{' '}
          Start as a canary
        </label>
      </Field>
      {form.canaryOn && (
        <div className="sub-fields">
          <Field label="Sample" htmlFor="canarySample" error={errors.canarySample}>
            <div className="choices inline">
              <NumberInput id="canarySample" value={form.canarySample} onChange={(text) => set('canarySample', text)} />
              <select
                aria-label="Sample unit"
                value={form.canaryBy}
                onChange={(e) => set('canaryBy', e.target.value as RolloutForm['canaryBy'])}
              >
                <option value="percent">% of the recipients</option>
                <option value="count">recipients</option>
              </select>
            </div>
          </Field>
          <Field
            label="Hold"
            htmlFor="canaryHold"
            error={errors.canaryHoldMinutes}
            hint="Minutes to wait after the sample is sent before judging it."
          >
            <NumberInput
              id="canaryHold"
              whole
              value={form.canaryHoldMinutes}
              onChange={(text) => set('canaryHoldMinutes', text)}
            />{' '}
            <span className="muted">minutes</span>
          </Field>
          <Field
            label="Stop above"
            htmlFor="canaryRejected"
            error={errors.canaryRejectedPercent ?? errors.canaryFailedPercent}
            hint="Of the sample: rejected for good by the channel, and not taken by it when the hold ends."
          >
            <div className="choices inline">
              <NumberInput
                id="canaryRejected"
                value={form.canaryRejectedPercent}
                onChange={(text) => set('canaryRejectedPercent', text)}
              />
              <label htmlFor="canaryRejected">% rejected</label>
              <NumberInput
                id="canaryFailed"
                value={form.canaryFailedPercent}
                onChange={(text) => set('canaryFailedPercent', text)}
              />
              <label htmlFor="canaryFailed">% failed</label>
            </div>
          </Field>
          <Field
            label="Pause below"
            htmlFor="canaryMinClickThrough"
            error={errors.canaryMinClickThrough}
            hint="Optional: the lowest click-through of the sample (the clicks your app reports over the recipients delivered online) at which the rest still goes. Judged only if clicks were reported by the end of the hold; empty: not judged."
          >
            <NumberInput
              id="canaryMinClickThrough"
              placeholder="not set"
              value={form.canaryMinClickThrough}
              onChange={(text) => set('canaryMinClickThrough', text)}
            />{' '}
            <span className="muted">% click-through</span>
          </Field>
        </div>
      )}
    </>
  );
}

function VariantFields({ form, errors, set }: { form: RolloutForm; errors: RolloutErrors; set: Set }) {
  const setRow = (index: number, row: Partial<VariantRow>) =>
    set(
      'variants',
      form.variants.map((v, i) => (i === index ? { ...v, ...row } : v)),
    );
  const total = shareTotal(form);
  return (
    <>
      <Field
        label="A/B variants"
        htmlFor="variantsOn"
        hint="Different messages to disjoint random shares of the recipients, and a holdout that gets nothing; each recipient keeps its variant."
      >
        <label className="check">
          <input
            id="variantsOn"
            type="checkbox"
            checked={form.variantsOn}
            onChange={(e) => set('variantsOn', e.target.checked)}
          />{' '}
          Send variants
        </label>
      </Field>
      {form.variantsOn && (
        <div className="sub-fields">
          {form.variants.map((v, i) => (
            <fieldset className="variant" key={i}>
              <legend>Variant {i + 1}</legend>
              <Field label="Name" htmlFor={`variant${i}-name`} error={errors[`variant${i}.name`]}>
                <input
                  id={`variant${i}-name`}
                  className="short mono"
                  autoComplete="off"
                  value={v.name}
                  onChange={(e) => setRow(i, { name: e.target.value })}
                />
              </Field>
              <Field label="Share" htmlFor={`variant${i}-share`} error={errors[`variant${i}.share`]}>
                <NumberInput id={`variant${i}-share`} value={v.share} onChange={(text) => setRow(i, { share: text })} />{' '}
                <span className="muted">%</span>
              </Field>
              <Field label="Title" htmlFor={`variant${i}-title`} error={errors[`variant${i}.title`]}>
                <input
                  id={`variant${i}-title`}
                  value={v.title}
                  onChange={(e) => setRow(i, { title: e.target.value })}
                />
              </Field>
              <Field label="Message" htmlFor={`variant${i}-body`} error={errors[`variant${i}.body`]}>
                <textarea
                  id={`variant${i}-body`}
                  rows={2}
                  value={v.body}
                  onChange={(e) => setRow(i, { body: e.target.value })}
                />
              </Field>
              {form.variants.length > MIN_VARIANTS && (
                <button
                  type="button"
                  className="link"
                  onClick={() =>
                    set(
                      'variants',
                      form.variants.filter((_, j) => j !== i),
                    )
                  }
                >
                  Remove variant {i + 1}
                </button>
              )}
            </fieldset>
          ))}
          {form.variants.length < MAX_VARIANTS && (
            <button type="button" onClick={() => set('variants', [...form.variants, newVariant(form.variants.length)])}>
              Add a variant
            </button>
          )}
          <Field
            label="Holdout"
            htmlFor="holdout"
            error={errors.holdout}
            hint="Gets nothing: the baseline to compare with."
          >
            <NumberInput id="holdout" value={form.holdout} onChange={(text) => set('holdout', text)} />{' '}
            <span className="muted">%</span>
          </Field>
          <p className="small" data-share-total>
            Shares and holdout: {Number.isFinite(total) ? `${+total.toFixed(4)}%` : '–'} of 100%
          </p>
          {errors.variants && (
            <div className="field-error" role="alert" data-field="variants">
              {errors.variants}
            </div>
          )}
        </div>
      )}
    </>
  );
}
