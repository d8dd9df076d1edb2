/**
 * The new-broadcast form's collapse key, canary and A/B variants
 * (docs/delivery.md "Collapse keys", docs/rollouts.md): values as typed, in
 * the units an operator thinks in (percent, minutes), the server's checks in
 * the form's words, the request fields they become, and where a refusal's
 * field lands. Pure.
 */

export interface VariantRow {
  name: string;
  /** Percent of the audience, as typed. */
  share: string;
  title: string;
  body: string;
}

export interface RolloutForm {
  collapseKey: string;
  canaryOn: boolean;
  /** The sample as a percent of the kept audience, or as about this many recipients. */
  canaryBy: 'percent' | 'count';
  canarySample: string;
  /** How long the task holds after its sample is sent, whole minutes. */
  canaryHoldMinutes: string;
  /** Thresholds over the sample, percent. */
  canaryRejectedPercent: string;
  canaryFailedPercent: string;
  /** The lowest click-through of the sample at which the rest still goes, percent; empty: not judged. */
  canaryMinClickThrough: string;
  variantsOn: boolean;
  variants: VariantRow[];
  /** Percent of the audience that gets nothing. */
  holdout: string;
}

type VariantPart = 'name' | 'share' | 'title' | 'body';
/** The form's fields, plus 'canary' (the canary as a whole) and 'variants' (their count and sum), which errors name. */
export type RolloutField = keyof RolloutForm | 'canary' | `variant${number}.${VariantPart}`;
export type RolloutErrors = Partial<Record<RolloutField, string>>;

/** The API's bounds (core rollout/model.ts). */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 8;
const MAX_HOLD_MINUTES = 1440;
const MAX_CANARY_PERCENT = 50;
const MAX_CANARY_COUNT = 1e9;
const VARIANT_NAME = /^[a-z0-9_-]{1,32}$/;
const COLLAPSE_KEY = /^[A-Za-z0-9._:-]{1,128}$/;
/** Percent shares typed with decimals add up to 100 within this much. */
const SUM_TOLERANCE = 1e-6;

export const newVariant = (index: number): VariantRow => ({
  name: String.fromCharCode(97 + index),
  share: '',
  title: '',
  body: '',
});

export const emptyRollout = (): RolloutForm => ({
  collapseKey: '',
  canaryOn: false,
  canaryBy: 'percent',
  canarySample: '1',
  canaryHoldMinutes: '10',
  canaryRejectedPercent: '5',
  canaryFailedPercent: '5',
  canaryMinClickThrough: '',
  variantsOn: false,
  variants: [
    { ...newVariant(0), share: '45' },
    { ...newVariant(1), share: '45' },
  ],
  holdout: '10',
});

/** A typed number, or NaN for anything that is not one (an empty text included). */
const numberOf = (text: string): number => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN);

/** The variants' shares plus the holdout, in percent (NaN while one is not a number). */
export function shareTotal(form: RolloutForm): number {
  return form.variants.reduce((sum, v) => sum + numberOf(v.share), numberOf(form.holdout || '0'));
}

function percentError(text: string, label: string): string | undefined {
  const n = numberOf(text);
  return n >= 0 && n <= 100 ? undefined : `${label}: a percent from 0 to 100.`;
}

function canaryErrors(form: RolloutForm, grouped: boolean): RolloutErrors {
  const errors: RolloutErrors = {};
  if (grouped)
    errors.canary =
      'A canary cannot be combined with local-time delivery or quiet hours: turn those off, or the canary.';
  const sample = numberOf(form.canarySample);
  if (
    form.canaryBy === 'percent' &&
    !(sample > 0 && sample <= MAX_CANARY_PERCENT && /^\s*\d{1,2}(\.\d{1,4})?\s*$/.test(form.canarySample))
  )
    errors.canarySample = `A percent above 0 and at most ${MAX_CANARY_PERCENT}, up to 4 decimals.`;
  if (form.canaryBy === 'count' && !(Number.isInteger(sample) && sample >= 1 && sample <= MAX_CANARY_COUNT))
    errors.canarySample = 'A whole number of recipients, 1 to 1,000,000,000.';
  const hold = numberOf(form.canaryHoldMinutes);
  if (!(Number.isInteger(hold) && hold <= MAX_HOLD_MINUTES))
    errors.canaryHoldMinutes = `A whole number of minutes, 0 to ${MAX_HOLD_MINUTES} (a day).`;
  const rejected = percentError(form.canaryRejectedPercent, 'Rejected');
  const failed = percentError(form.canaryFailedPercent, 'Failed');
  if (rejected !== undefined) errors.canaryRejectedPercent = rejected;
  if (failed !== undefined) errors.canaryFailedPercent = failed;
  // Optional: left empty, the canary is not judged on click-through (and the request carries no minimum).
  const minClickThrough =
    form.canaryMinClickThrough.trim() === ''
      ? undefined
      : percentError(form.canaryMinClickThrough, 'Minimum click-through');
  if (minClickThrough !== undefined) errors.canaryMinClickThrough = minClickThrough;
  return errors;
}

function variantErrors(form: RolloutForm): RolloutErrors {
  const errors: RolloutErrors = {};
  const { variants } = form;
  if (variants.length < MIN_VARIANTS || variants.length > MAX_VARIANTS)
    errors.variants = `${MIN_VARIANTS} to ${MAX_VARIANTS} variants.`;
  const seen = new Set<string>();
  variants.forEach((v, i) => {
    if (!VARIANT_NAME.test(v.name)) errors[`variant${i}.name`] = 'Name: 1 to 32 of a-z 0-9 _ -';
    else if (seen.has(v.name)) errors[`variant${i}.name`] = 'Another variant has this name.';
    seen.add(v.name);
    const share = numberOf(v.share);
    if (!(share > 0 && share < 100)) errors[`variant${i}.share`] = 'Share: a percent above 0 and below 100.';
    if (v.title.length > 256) errors[`variant${i}.title`] = `Title: at most 256 characters (${v.title.length} now).`;
    if (v.body.trim() === '') errors[`variant${i}.body`] = 'Write this variant’s message.';
  });
  const holdout = numberOf(form.holdout || '0');
  if (!(holdout >= 0 && holdout < 100)) errors.holdout = 'A percent from 0 to below 100.';
  const total = shareTotal(form);
  if (errors.variants === undefined && Number.isFinite(total) && Math.abs(total - 100) > SUM_TOLERANCE)
    errors.variants = `The shares and the holdout add up to ${+total.toFixed(4)}%, not 100%.`;
  return errors;
}

/**
 * The server's checks, before anything is sent. `grouped` says the form also
 * asks for local time or quiet hours, which a canary cannot be combined with.
 */
export function validateRollout(form: RolloutForm, grouped: boolean): RolloutErrors {
  const key = form.collapseKey.trim();
  return {
    ...(key !== '' && !COLLAPSE_KEY.test(key)
      ? { collapseKey: 'A collapse key is 1 to 128 letters, digits or . _ : -' }
      : {}),
    ...(form.canaryOn ? canaryErrors(form, grouped) : {}),
    ...(form.variantsOn ? variantErrors(form) : {}),
  };
}

export interface RolloutBody {
  collapseKey?: string;
  canary?: {
    sample: string | number;
    holdSeconds: number;
    thresholds: { rejectedRatio: number; failedRatio: number; minClickThrough?: number };
  };
  variants?: { name: string; share: number; content: { body: string; title?: string; template?: true } }[];
  holdout?: number;
}

/** A percent as typed (up to 4 decimals) as the API's share, without 56.7 / 100 = 0.5670000000000001. */
const shareOf = (percent: string): number => Number((Number(percent) / 100).toFixed(6));

/** The request fields; `template` makes each variant's content personalised like the task's own. */
export function rolloutBody(form: RolloutForm, template: boolean): RolloutBody {
  const key = form.collapseKey.trim();
  const body: RolloutBody = key === '' ? {} : { collapseKey: key };
  if (form.canaryOn)
    body.canary = {
      sample: form.canaryBy === 'percent' ? `${form.canarySample.trim()}%` : Number(form.canarySample),
      holdSeconds: Number(form.canaryHoldMinutes) * 60,
      thresholds: {
        rejectedRatio: shareOf(form.canaryRejectedPercent),
        failedRatio: shareOf(form.canaryFailedPercent),
        ...(form.canaryMinClickThrough.trim() === '' ? {} : { minClickThrough: shareOf(form.canaryMinClickThrough) }),
      },
    };
  if (form.variantsOn) {
    body.variants = form.variants.map((v) => ({
      name: v.name,
      share: shareOf(v.share),
      content: {
        body: v.body,
        ...(v.title.trim() === '' ? {} : { title: v.title }),
        ...(template ? { template: true as const } : {}),
      },
    }));
    const holdout = shareOf(form.holdout || '0');
    if (holdout > 0) body.holdout = holdout;
  }
  return body;
}

/** The form field a refusal names: 'canary.thresholds.failedRatio', 'variants[1].content.body', ... */
export function rolloutFieldOf(serverField: string | undefined): RolloutField | undefined {
  if (serverField === undefined) return undefined;
  const variant = /^variants\[(\d+)\](?:\.(name|share|content)(?:\.(body|title|template))?)?$/.exec(serverField);
  if (variant !== null) {
    const part = variant[2] === 'content' ? (variant[3] === 'title' ? 'title' : 'body') : variant[2];
    return part === undefined ? 'variants' : (`variant${Number(variant[1])}.${part as VariantPart}` as RolloutField);
  }
  if (serverField === 'collapseKey' || serverField === 'variants' || serverField === 'holdout') return serverField;
  if (serverField === 'canary.sample') return 'canarySample';
  if (serverField === 'canary.holdSeconds') return 'canaryHoldMinutes';
  if (serverField === 'canary.thresholds.failedRatio') return 'canaryFailedPercent';
  if (serverField === 'canary.thresholds.minClickThrough') return 'canaryMinClickThrough';
  if (serverField.startsWith('canary.thresholds')) return 'canaryRejectedPercent';
  return serverField.startsWith('canary') ? 'canary' : undefined;
}

/** A task's rollout settings back in the form (a clone starts from them). */
export function rolloutFormOf(task: {
  collapseKey?: string;
  rollout?: {
    canary?: {
      sample: string | number;
      holdSeconds: number;
      thresholds: { rejectedRatio: number; failedRatio: number; minClickThrough?: number };
    };
    variants?: { name: string; share: number; content: { body: string; title?: string } }[];
    holdout?: number;
  };
}): RolloutForm {
  const empty = emptyRollout();
  const { canary, variants, holdout } = task.rollout ?? {};
  const percent = (ratio: number) => String(+(ratio * 100).toFixed(6));
  return {
    ...empty,
    collapseKey: task.collapseKey ?? '',
    ...(canary
      ? {
          canaryOn: true,
          canaryBy: typeof canary.sample === 'number' ? 'count' : 'percent',
          canarySample: String(canary.sample).replace(/%$/, ''),
          canaryHoldMinutes: String(Math.round(canary.holdSeconds / 60)),
          canaryRejectedPercent: percent(canary.thresholds.rejectedRatio),
          canaryFailedPercent: percent(canary.thresholds.failedRatio),
          canaryMinClickThrough:
            canary.thresholds.minClickThrough === undefined ? '' : percent(canary.thresholds.minClickThrough),
        }
      : {}),
    ...(variants
      ? {
          variantsOn: true,
          variants: variants.map((v) => ({
            name: v.name,
            share: percent(v.share),
            title: v.content.title ?? '',
            body: v.content.body,
          })),
          holdout: percent(holdout ?? 0),
        }
      : {}),
  };
}

/** The rollout fields' errors out of a form's errors (a campaign form's section opens on them). */
export function rolloutErrorsOf(errors: Readonly<Record<string, string | undefined>>): RolloutErrors {
  const fields = new Set<string>([...Object.keys(emptyRollout()), 'canary']);
  return Object.fromEntries(
    Object.entries(errors).filter(([name]) => fields.has(name) || /^variant\d+\./.test(name)),
  ) as RolloutErrors;
}
