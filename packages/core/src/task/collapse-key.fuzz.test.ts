/**
 * Fuzz tests (fast-check) of collapse keys (NewTask.collapseKey): for any
 * value, checkCollapseKey returns it only when it is 1..128 characters of
 * [A-Za-z0-9._:-], and otherwise throws VALIDATION_FAILED naming the field
 * (never a TypeError); two accounts' scopes never meet. Runs per property:
 * HERALD_FUZZ_RUNS. docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { checkCollapseKey, collapseScopeOf, MAX_COLLAPSE_KEY_CHARS } from './collapse-key';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };
const KEY_CHARS = 'abcXYZ019._:-'.split('');
const validKey = fc
  .array(fc.constantFrom(...KEY_CHARS), { minLength: 1, maxLength: MAX_COLLAPSE_KEY_CHARS })
  .map((chars) => chars.join(''));

function verdict(value: unknown): 'ok' | 'refused' {
  try {
    checkCollapseKey(value);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toMatchObject({ field: 'collapseKey' });
    return 'refused';
  }
}

describe('collapse keys (fuzz)', () => {
  it('takes every key of the allowed characters and length', () => {
    fc.assert(
      fc.property(validKey, (key) => verdict(key) === 'ok'),
      settings,
    );
  });

  it('refuses anything else with VALIDATION_FAILED naming collapseKey', () => {
    const allowed = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(v);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.string({ unit: 'binary', maxLength: 140 }),
          // Near misses: allowed characters with an occasional other one, around the length limit.
          fc
            .array(fc.constantFrom(...KEY_CHARS, ' ', '/', 'é', '\u0000'), { maxLength: MAX_COLLAPSE_KEY_CHARS + 3 })
            .map((chars) => chars.join('')),
        ),
        (value) => {
          expect(verdict(value)).toBe(allowed(value) ? 'ok' : 'refused');
        },
      ),
      settings,
    );
    expect(verdict('x'.repeat(MAX_COLLAPSE_KEY_CHARS + 1))).toBe('refused');
    expect(verdict('')).toBe('refused');
  });

  it("keeps accounts apart: one account's scope is never another's", () => {
    const account = fc.stringMatching(/^[a-z0-9_]{1,64}$/);
    fc.assert(
      fc.property(account, account, validKey, validKey, (a, b, k1, k2) => {
        const same =
          collapseScopeOf({ accountId: a, collapseKey: k1 }) === collapseScopeOf({ accountId: b, collapseKey: k2 });
        expect(same).toBe(a === b && k1 === k2);
      }),
      settings,
    );
    expect(collapseScopeOf({ accountId: 'acme' })).toBeUndefined();
  });
});
