import { ValidationError } from '../errors';
import type { TaskContent } from '../task/model';
import {
  MAX_CANARY_PERCENT,
  MAX_HOLD_SECONDS,
  MAX_VARIANTS,
  MIN_VARIANTS,
  SHARE_TOLERANCE,
  VARIANT_NAME,
  type CanarySample,
  type CanarySpec,
  type RolloutVariant,
  type TaskRollout,
} from './model';

/*
 * The rollout settings of a task request (docs/rollouts.md), judged before
 * anything is created: every refusal is VALIDATION_FAILED naming the field
 * (`canary.sample`, `variants[2].share`, ...). Unknown fields are refused too,
 * so a misspelt threshold never silently means "no threshold". Pure.
 */

function refuse(field: string, value: unknown, why: string): never {
  throw new ValidationError(`${field} ${why}`, { field, value });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyFields(field: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value))
    if (!allowed.includes(key)) refuse(`${field}.${key}`, value[key], 'is not a known field');
}

function ratio(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    refuse(field, value, 'must be a number in [0, 1]');
  return value;
}

/** "1%", "0.5%" (a percent in (0, 50]) or a whole number of recipients (1..10^9). */
export function parseCanarySample(value: unknown, field = 'canary.sample'): CanarySample {
  if (typeof value === 'string') {
    const match = /^(\d{1,2}(?:\.\d{1,4})?)%$/.exec(value);
    const percent = match === null ? NaN : Number(match[1]);
    if (!(percent > 0 && percent <= MAX_CANARY_PERCENT))
      refuse(field, value, `must be a percent in (0, ${MAX_CANARY_PERCENT}] like "1%", or a recipient count`);
    return value;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1e9)
    refuse(field, value, 'must be a percent like "1%" or a whole number of recipients (1..10^9)');
  return value;
}

/** A canary: `{ sample, holdSeconds, thresholds: { rejectedRatio, failedRatio, minClickThrough? } }`. */
export function parseCanary(value: unknown, field = 'canary'): CanarySpec {
  if (!isObject(value)) refuse(field, value, 'must be an object');
  onlyFields(field, value, ['sample', 'holdSeconds', 'thresholds']);
  const sample = parseCanarySample(value.sample, `${field}.sample`);
  const hold = value.holdSeconds;
  if (typeof hold !== 'number' || !Number.isInteger(hold) || hold < 0 || hold > MAX_HOLD_SECONDS)
    refuse(`${field}.holdSeconds`, hold, `must be a whole number of seconds in 0..${MAX_HOLD_SECONDS}`);
  const thresholds = value.thresholds;
  if (!isObject(thresholds)) refuse(`${field}.thresholds`, thresholds, 'must be an object');
  onlyFields(`${field}.thresholds`, thresholds, ['rejectedRatio', 'failedRatio', 'minClickThrough']);
  const minClickThrough =
    thresholds.minClickThrough === undefined
      ? undefined
      : ratio(`${field}.thresholds.minClickThrough`, thresholds.minClickThrough);
  return {
    sample,
    holdSeconds: hold,
    thresholds: {
      rejectedRatio: ratio(`${field}.thresholds.rejectedRatio`, thresholds.rejectedRatio),
      failedRatio: ratio(`${field}.thresholds.failedRatio`, thresholds.failedRatio),
      ...(minClickThrough === undefined ? {} : { minClickThrough }),
    },
  };
}

function parseVariantContent(value: unknown, field: string): TaskContent {
  if (!isObject(value)) refuse(field, value, 'must be an object');
  onlyFields(field, value, ['body', 'title', 'template']);
  if (typeof value.body !== 'string' || value.body === '') refuse(`${field}.body`, value.body, 'must be a text');
  if (value.title !== undefined && typeof value.title !== 'string')
    refuse(`${field}.title`, value.title, 'must be a text');
  if (value.template !== undefined && value.template !== true)
    refuse(`${field}.template`, value.template, 'must be true or absent');
  return {
    body: value.body,
    ...(value.title === undefined ? {} : { title: value.title as string }),
    ...(value.template === true ? { template: true as const } : {}),
  };
}

/**
 * Content variants and their holdout: 2..8 variants with distinct names, each
 * share in (0, 1), the holdout in [0, 1) (absent: 0), the shares adding up to
 * 1 - holdout within SHARE_TOLERANCE (else `field` variants is named).
 * `prefix` goes before every field named ('template.' for a campaign's
 * template: `template.variants[1].share`).
 */
export function parseVariants(
  variants: unknown,
  holdout: unknown,
  prefix = '',
): { variants: RolloutVariant[]; holdout: number } {
  if (!Array.isArray(variants) || variants.length < MIN_VARIANTS || variants.length > MAX_VARIANTS)
    refuse(`${prefix}variants`, variants, `must be a list of ${MIN_VARIANTS}..${MAX_VARIANTS} variants`);
  const held = holdout === undefined ? 0 : holdout;
  if (typeof held !== 'number' || !Number.isFinite(held) || held < 0 || held >= 1)
    refuse(`${prefix}holdout`, holdout, 'must be a number in [0, 1)');
  const names = new Set<string>();
  const parsed = variants.map((variant: unknown, i): RolloutVariant => {
    const field = `${prefix}variants[${i}]`;
    if (!isObject(variant)) refuse(field, variant, 'must be an object');
    onlyFields(field, variant, ['name', 'share', 'content']);
    const { name, share } = variant;
    if (typeof name !== 'string' || !VARIANT_NAME.test(name))
      refuse(`${field}.name`, name, 'must be 1..32 characters of [a-z0-9_-]');
    if (names.has(name)) refuse(`${field}.name`, name, 'is used by another variant');
    names.add(name);
    if (typeof share !== 'number' || !Number.isFinite(share) || share <= 0 || share >= 1)
      refuse(`${field}.share`, share, 'must be a number in (0, 1)');
    return { name, share, content: parseVariantContent(variant.content, `${field}.content`) };
  });
  const sum = parsed.reduce((total, v) => total + v.share, 0);
  if (Math.abs(sum + held - 1) > SHARE_TOLERANCE)
    refuse(`${prefix}variants`, sum, `shares add up to ${sum}, not 1 - holdout (${1 - held})`);
  return { variants: parsed, holdout: held };
}

/** A stored rollout (NewTask.rollout) re-checked by the stores: the seed a u32, the rest as the parsers take it. */
export function checkTaskRollout(value: unknown): TaskRollout {
  if (!isObject(value)) refuse('rollout', value, 'must be an object');
  onlyFields('rollout', value, ['seed', 'canary', 'variants', 'holdout']);
  const seed = value.seed;
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    refuse('rollout.seed', seed, 'must be an unsigned 32-bit integer');
  if (value.canary === undefined && value.variants === undefined)
    refuse('rollout', value, 'must carry a canary or variants');
  if (value.variants === undefined && value.holdout !== undefined) refuse('holdout', value.holdout, 'needs variants');
  return {
    seed,
    ...(value.canary === undefined ? {} : { canary: parseCanary(value.canary) }),
    ...(value.variants === undefined ? {} : parseVariants(value.variants, value.holdout)),
  };
}
