/**
 * Fuzz tests (fast-check) of checkAptaMessage, the guard between a decoded
 * (or hand-made) APTA message and the membership state machine: for any
 * value it returns the message unchanged or throws ValidationError, and it
 * accepts every well-formed message.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { checkAptaMessage, type AptaMessage } from './messages';
import { APTA_STATES } from './states';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

const count = fc.oneof(fc.constantFrom(0, Number.MAX_SAFE_INTEGER), fc.maxSafeNat());
const memberId = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
const entry = fc.record({
  id: memberId,
  incarnation: count,
  seq: count,
  state: fc.constantFrom(...APTA_STATES),
  takesWork: fc.boolean(),
});
const advert = fc.record({
  from: memberId,
  incarnation: count,
  seq: count,
  state: fc.constantFrom(...APTA_STATES),
  takesWork: fc.boolean(),
  table: fc.array(entry, { maxLength: 5 }),
});
const valid: fc.Arbitrary<AptaMessage> = fc.oneof(
  advert.map((a) => ({ kind: 'hello' as const, ...a })),
  advert.map((a) => ({ kind: 'hello.reply' as const, ...a })),
  fc.tuple(advert, count).map(([a, requestId]) => ({ kind: 'lsr.request' as const, requestId, ...a })),
  fc.tuple(advert, count).map(([a, requestId]) => ({ kind: 'lsr.reply' as const, requestId, ...a })),
);
/** Field values that are wrong in every way a peer or a bug could make them. */
const wrong = fc.oneof(
  fc.anything({
    maxDepth: 2,
    withBigInt: true,
    withBoxedValues: true,
    withNullPrototype: true,
    withTypedArray: true,
    withSparseArray: true,
  }),
  fc.constantFrom(-1, 1.5, NaN, Infinity, 2 ** 53, '', 'bad id!', 'x'.repeat(65), 'ONLINE', 'hello', [], [null], [{}]),
);

/** checkAptaMessage, with anything thrown but a ValidationError escaping to fail the property. */
function tryCheck(value: unknown): AptaMessage | ValidationError {
  try {
    return checkAptaMessage(value as AptaMessage);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

describe('checkAptaMessage, fuzzed', () => {
  it('accepts every well-formed message and returns it as it is', () => {
    fc.assert(
      fc.property(valid, (message) => {
        expect(tryCheck(message)).toBe(message);
      }),
      settings,
    );
  });

  it('throws only ValidationError on arbitrary values', () => {
    fc.assert(
      fc.property(wrong, (value) => {
        tryCheck(value);
      }),
      settings,
    );
  });

  it('throws only ValidationError on a well-formed message with one field, or one table field, made wrong', () => {
    const field = fc.constantFrom('kind', 'from', 'incarnation', 'seq', 'state', 'takesWork', 'table', 'requestId');
    const rowField = fc.constantFrom('id', 'incarnation', 'seq', 'state', 'takesWork');
    fc.assert(
      fc.property(valid, field, rowField, fc.nat(), wrong, fc.boolean(), (message, key, rowKey, row, value, inRow) => {
        const table = message.table as unknown as Record<string, unknown>[];
        const mutated =
          inRow && table.length > 0
            ? { ...message, table: table.map((e, i) => (i === row % table.length ? { ...e, [rowKey]: value } : e)) }
            : { ...message, [key]: value };
        const outcome = tryCheck(mutated);
        if (!(outcome instanceof ValidationError)) expect(outcome).toBe(mutated);
      }),
      settings,
    );
  });
});
