import type { FilterReason } from '@herald/core/task';
import { runFilterChain, type FilterContext, type RecipientFilter } from './filter';

const context: FilterContext = { taskId: 7, accountId: 'acme', contentCrc: 0xdeadbeef };

/** A filter that drops the given uins and records (copies of) what it was handed. */
function dropping(name: string, reason: FilterReason, drop: readonly number[]): RecipientFilter & { seen: number[][] } {
  const seen: number[][] = [];
  return {
    name,
    reason,
    seen,
    async apply(uins) {
      seen.push([...uins]);
      return Uint32Array.from([...uins].filter((u) => !drop.includes(u)));
    },
  };
}

describe('runFilterChain', () => {
  it('counts what each filter removed, under its reason', async () => {
    const first = dropping('a', 'duplicate', [2]);
    const second = dropping('b', 'blacklisted', [3, 4]);
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 2, 3, 4, 5), [first, second], context);
    expect([...kept]).toEqual([1, 5]);
    expect(removed).toEqual({ duplicate: 1, blacklisted: 2 });
  });

  it('with record, keeps what each link that ran removed, even when a link compacts in place', async () => {
    const inPlace: RecipientFilter = {
      name: 'in place',
      reason: 'blacklisted',
      async apply(uins) {
        let n = 0;
        for (const uin of uins) if (uin !== 4) uins[n++] = uin;
        return uins.subarray(0, n);
      },
    };
    const skipped: RecipientFilter = { ...dropping('c', 'targeting', [5]), runsFor: async () => false };
    const result = await runFilterChain(
      Uint32Array.of(1, 2, 2, 4, 5),
      [dropping('a', 'duplicate', [2]), inPlace, skipped],
      context,
      { record: true },
    );
    expect(result.complete).toBe(true);
    expect(result.removedSets?.map((s) => [s.reason, [...s.uins]])).toEqual([
      ['duplicate', [2, 2]],
      ['blacklisted', [4]],
    ]);
    expect(result.removed).toEqual({ duplicate: 2, blacklisted: 1 });
  });

  it('hands each filter what the previous one kept', async () => {
    const first = dropping('a', 'duplicate', [1]);
    const second = dropping('b', 'blacklisted', [2]);
    const third = dropping('c', 'already_sent', [3]);
    const { kept } = await runFilterChain(Uint32Array.of(1, 2, 3, 4), [first, second, third], context);
    expect(first.seen).toEqual([[1, 2, 3, 4]]);
    expect(second.seen).toEqual([[2, 3, 4]]);
    expect(third.seen).toEqual([[3, 4]]);
    expect([...kept]).toEqual([4]);
  });

  it('passes the task context to every filter', async () => {
    const contexts: FilterContext[] = [];
    const spy: RecipientFilter = {
      name: 'spy',
      reason: 'targeting',
      async apply(uins, ctx) {
        contexts.push(ctx);
        return uins;
      },
    };
    await runFilterChain(Uint32Array.of(1), [spy, spy], context);
    expect(contexts).toEqual([context, context]);
  });

  it('records a zero for a filter that removed nothing', async () => {
    const { removed } = await runFilterChain(Uint32Array.of(1, 2), [dropping('a', 'blacklisted', [])], context);
    expect(removed).toEqual({ blacklisted: 0 });
  });

  it('handles an empty input', async () => {
    const first = dropping('a', 'duplicate', [1]);
    const { kept, removed } = await runFilterChain(new Uint32Array(0), [first], context);
    expect(kept.length).toBe(0);
    expect(first.seen).toEqual([[]]);
    expect(removed).toEqual({ duplicate: 0 });
  });

  it('returns the input unchanged with no filters', async () => {
    const input = Uint32Array.of(3, 9);
    const { kept, removed } = await runFilterChain(input, [], context);
    expect([...kept]).toEqual([3, 9]);
    expect(removed).toEqual({});
  });

  it('adds up the counts of two filters that share a reason', async () => {
    const global = dropping('global', 'blacklisted', [1]);
    const own = dropping('own', 'blacklisted', [2, 3]);
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 2, 3, 4), [global, own], context);
    expect([...kept]).toEqual([4]);
    expect(removed).toEqual({ blacklisted: 3 });
  });

  it('skips a link that does not run for the task, and leaves it out of the counts', async () => {
    const asked: FilterContext[] = [];
    const skipped: RecipientFilter = {
      ...dropping('s', 'not_follower', [1]),
      runsFor: async (ctx) => (asked.push(ctx), false),
    };
    const taken: RecipientFilter = { ...dropping('t', 'targeting', [2]), runsFor: async () => true };
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 2, 3), [skipped, taken], context);
    expect([...kept]).toEqual([1, 3]);
    expect(removed).toEqual({ targeting: 1 });
    expect(asked).toEqual([context]);
  });
});
