/**
 * Fuzz tests (fast-check) of readPresenceEvent, which reads login/logout
 * events that login services publish on the presence topic: for any value it
 * returns a change or `{ malformed }` and never throws; a well-formed event
 * comes back as it was sent.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { readPresenceEvent } from './presence-event';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

const uinLimit = fc.constantFrom(1, 2 ** 20, 2 ** 32);
const timestamp = fc.integer({ min: 0, max: 2 ** 45 });

/** The result is one of the two documented shapes. */
function expectShape(result: ReturnType<typeof readPresenceEvent>, limit: number): void {
  if ('malformed' in result) {
    expect(typeof result.malformed).toBe('string');
  } else {
    expect(Number.isInteger(result.uin) && result.uin >= 0 && result.uin < limit).toBe(true);
    expect(typeof result.online).toBe('boolean');
    expect(Number.isFinite(result.at)).toBe(true);
  }
}

describe('readPresenceEvent, fuzzed', () => {
  it('round-trips every well-formed event through JSON', () => {
    const event = fc.tuple(
      uinLimit,
      fc.nat(),
      fc.boolean(),
      fc.option(fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), { nil: undefined }),
      timestamp,
    );
    fc.assert(
      fc.property(event, ([limit, n, online, at, ts]) => {
        const uin = n % limit;
        const value: unknown = JSON.parse(JSON.stringify(at === undefined ? { uin, online } : { uin, online, at }));
        expect(readPresenceEvent(value, ts, limit)).toEqual({ uin, online, at: at ?? ts });
      }),
      settings,
    );
  });

  it('never throws on arbitrary JSON values, and on objects with the right keys holding anything', () => {
    const anything = fc.anything({
      maxDepth: 2,
      withBigInt: true,
      withBoxedValues: true,
      withNullPrototype: true,
      withTypedArray: true,
    });
    const shaped = fc.record({ uin: anything, online: anything, at: anything }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), anything, shaped), timestamp, uinLimit, (value, ts, limit) => {
        expectShape(readPresenceEvent(value, ts, limit), limit);
      }),
      settings,
    );
  });
});
