/**
 * Fuzz tests (fast-check) of the rollout parsers (docs/rollouts.md): for any
 * value, parseCanary and parseVariants either return a spec within their
 * bounds or throw VALIDATION_FAILED naming a field (never a TypeError).
 * Runs per property: HERALD_FUZZ_RUNS. docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { MAX_VARIANTS, SHARE_TOLERANCE } from './model';
import { parseCanary, parseVariants } from './parse';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

function refusedNamingAField(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect(typeof (error as ValidationError).details.field).toBe('string');
    return true;
  }
}

const ratio = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.anything());
const canaryLike = fc.record(
  {
    sample: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constantFrom('1%', '50%', '0.5%', '51%')),
    holdSeconds: fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.anything()),
    thresholds: fc.oneof(fc.record({ rejectedRatio: ratio, failedRatio: ratio }), fc.anything()),
  },
  { requiredKeys: [] },
);

describe('rollout parsers (fuzz)', () => {
  it('a canary is either within bounds or refused naming a field', () => {
    fc.assert(
      fc.property(fc.oneof(canaryLike, fc.anything()), (value) => {
        let spec: ReturnType<typeof parseCanary> | undefined;
        if (refusedNamingAField(() => (spec = parseCanary(value)))) return;
        const { holdSeconds, thresholds } = spec!;
        expect(Number.isInteger(holdSeconds)).toBe(true);
        expect(thresholds.rejectedRatio).toBeGreaterThanOrEqual(0);
        expect(thresholds.failedRatio).toBeLessThanOrEqual(1);
      }),
      settings,
    );
  });

  it('variants are either disjoint shares adding up to 1 - holdout or refused naming a field', () => {
    const variant = fc.record({
      name: fc.oneof(fc.constantFrom('a', 'b', 'c', 'ctl'), fc.string()),
      share: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.anything()),
      content: fc.oneof(fc.record({ body: fc.string() }), fc.anything()),
    });
    fc.assert(
      fc.property(
        fc.oneof(fc.array(variant, { maxLength: MAX_VARIANTS + 2 }), fc.anything()),
        fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 1, noNaN: true }), fc.anything()),
        (variants, holdout) => {
          let parsed: ReturnType<typeof parseVariants> | undefined;
          if (refusedNamingAField(() => (parsed = parseVariants(variants, holdout)))) return;
          const sum = parsed!.variants.reduce((total, v) => total + v.share, 0);
          expect(Math.abs(sum + parsed!.holdout - 1)).toBeLessThanOrEqual(SHARE_TOLERANCE);
        },
      ),
      settings,
    );
  });

  it('takes every well-formed split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: MAX_VARIANTS }),
        fc.integer({ min: 0, max: 50 }),
        (weights, heldPercent) => {
          const holdout = heldPercent / 100;
          const total = weights.reduce((a, b) => a + b, 0);
          const variants = weights.map((w, i) => ({
            name: `v${i}`,
            share: ((1 - holdout) * w) / total,
            content: { body: 'x' },
          }));
          const parsed = parseVariants(variants, holdout);
          expect(parsed.variants).toHaveLength(weights.length);
        },
      ),
      settings,
    );
  });
});
