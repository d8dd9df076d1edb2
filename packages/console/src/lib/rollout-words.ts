import type { CanarySpec, RolloutVariant } from '../api/types';
import { fmtInt, fmtSetShare } from './format';

/**
 * A canary's and A/B variants' settings in the operator's words, as a task's
 * settings panel and a campaign's template show them (docs/rollouts.md). Pure.
 */

/** The canary's sample as set: "1%" of the recipients, or about 10,000 of them. */
export function sampleText(sample: string | number): string {
  return typeof sample === 'number' ? `about ${fmtInt(sample)} recipients` : `${sample} of the recipients`;
}

/**
 * "1% of the recipients first, hold 10 min; stop above 5% rejected or 5%
 * failed", and ", or below 2% click-through" when a minimum is set.
 */
export function canaryWords(canary: CanarySpec): string {
  const { rejectedRatio, failedRatio, minClickThrough } = canary.thresholds;
  const clicks = minClickThrough === undefined ? '' : `, or below ${fmtSetShare(minClickThrough)} click-through`;
  return `${sampleText(canary.sample)} first, hold ${fmtInt(canary.holdSeconds / 60)} min; stop above ${fmtSetShare(rejectedRatio)} rejected or ${fmtSetShare(failedRatio)} failed${clicks}`;
}

/** "a 45%, b 45%; holdout 10%". */
export function variantsWords(variants: readonly RolloutVariant[], holdout: number | undefined): string {
  return `${variants.map((v) => `${v.name} ${fmtSetShare(v.share)}`).join(', ')}; holdout ${fmtSetShare(holdout ?? 0)}`;
}

/** A campaign template's collapse key, canary and variants in one line ('' when it has none). */
export function templateRolloutWords(t: {
  collapseKey?: string;
  canary?: CanarySpec;
  variants?: RolloutVariant[];
  holdout?: number;
}): string {
  return [
    t.collapseKey !== undefined && `Collapse key ${t.collapseKey}: each firing replaces the last in offline inboxes.`,
    t.canary !== undefined && `Each firing starts as a canary: ${canaryWords(t.canary)}.`,
    t.variants !== undefined && `Variants ${variantsWords(t.variants, t.holdout)}.`,
  ]
    .filter(Boolean)
    .join(' ');
}
