import fc from 'fast-check';
import { FILTER_REASONS, TASK_STATES } from '../task';
import { classifyFate, keptPositionFate, type FateFacts } from './index';

/** Any facts a lookup or the report may gather for a recipient. */
const factsArbitrary: fc.Arbitrary<FateFacts> = fc.record({
  uin: fc.nat(),
  taskState: fc.constantFrom(...TASK_STATES),
  expiresAt: fc.nat({ max: 2_000 }),
  now: fc.nat({ max: 2_000 }),
  filtered: fc.boolean(),
  position: fc.option(fc.nat(), { nil: undefined }),
  removal: fc.oneof(
    fc.constant({ recorded: false } as const),
    fc.record({
      recorded: fc.constant(true as const),
      complete: fc.boolean(),
      reason: fc.option(fc.constantFrom(...FILTER_REASONS), { nil: undefined }),
      duplicateCopies: fc.nat({ max: 3 }),
    }),
  ),
  delivery: fc.oneof(
    fc.record({
      kind: fc.constant('record' as const),
      online: fc.boolean(),
      at: fc.nat(),
      executor: fc.constantFrom('e1', 'e,2'),
      rejected: fc.option(fc.constantFrom('unregistered', 'bad,"token'), { nil: undefined }),
    }),
    fc.constant({ kind: 'none' } as const),
    fc.record({ kind: fc.constant('unavailable' as const), reason: fc.string() }),
  ),
  login: fc.oneof(
    fc.record({
      kind: fc.constant('record' as const),
      outcome: fc.record({
        taskId: fc.constant(1),
        uin: fc.nat(),
        outcome: fc.constantFrom('delivered', 'expired', 'over_frequency'),
        at: fc.nat(),
      }),
    }),
    fc.constant({ kind: 'none' } as const),
    fc.record({ kind: fc.constant('unavailable' as const), reason: fc.string() }),
  ),
});

describe('keptPositionFate', () => {
  it('is, for a recipient in the filtered list, the fate classifyFate gives it less its uin, position and copies', () => {
    fc.assert(
      fc.property(factsArbitrary, (facts) => {
        fc.pre(facts.filtered && facts.position !== undefined);
        const { uin, position, duplicateCopiesRemoved, ...fate } = classifyFate(facts);
        expect({ uin, position }).toEqual({ uin: facts.uin, position: facts.position });
        const copies = facts.removal.recorded ? facts.removal.duplicateCopies : 0;
        expect(duplicateCopiesRemoved ?? 0).toBe(copies);
        expect(fate).toEqual(keptPositionFate(facts));
      }),
      { numRuns: 2_000 },
    );
  });

  it('does not depend on the uin, the position or the removal facts', () => {
    fc.assert(
      fc.property(factsArbitrary, factsArbitrary, (a, b) => {
        const shared = {
          taskState: a.taskState,
          expiresAt: a.expiresAt,
          now: a.now,
          delivery: a.delivery,
          login: a.login,
        };
        expect(keptPositionFate({ ...b, ...shared })).toEqual(keptPositionFate({ ...a, ...shared }));
        fc.pre(a.position !== undefined && b.position !== undefined);
        const first = classifyFate({ ...a, filtered: true });
        const second = classifyFate({ ...b, ...shared, filtered: true, removal: a.removal });
        expect({ ...second, uin: first.uin, position: first.position }).toEqual(first);
      }),
      { numRuns: 1_000 },
    );
  });
});
