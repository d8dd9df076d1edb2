import { mulberry32 } from '@herald/core';
import { radixSortUint32 } from '@herald/core/uins';
import { buildFilterChain } from './chain';
import { runFilterChain, type ChainResult, type FilterContext, type RecipientFilter } from './filter';
import { mergeSorted } from './merge-sorted';
import { runFilterChainParallel } from './parallel';

const context: FilterContext = { taskId: 3, accountId: 'acme', contentCrc: 9 };

/** n uins from a seeded generator over [0, range), repeats included. */
function randomList(n: number, range: number, seed: number): Uint32Array {
  const next = mulberry32(seed);
  return Uint32Array.from({ length: n }, () => next() % range);
}

describe('mergeSorted', () => {
  it('merges disjoint ascending arrays into one', () => {
    expect([
      ...mergeSorted([Uint32Array.of(1, 5, 9), Uint32Array.of(2, 3), Uint32Array.of(), Uint32Array.of(0, 10)]),
    ]).toEqual([0, 1, 2, 3, 5, 9, 10]);
    expect([...mergeSorted([])]).toEqual([]);
    expect([...mergeSorted([Uint32Array.of(4)])]).toEqual([4]);
  });
});

describe('runFilterChainParallel', () => {
  const chain = buildFilterChain({
    blacklists: {
      global: async () => radixSortUint32(Uint32Array.from(new Set(randomList(5000, 1 << 20, 2)))),
      forAccount: async () => undefined,
    },
    ledger: {
      async *audiencesOf() {
        yield radixSortUint32(Uint32Array.from(new Set(randomList(100_000, 1 << 20, 3))));
        yield Uint32Array.of(0, 2 ** 32 - 1);
      },
    },
  });

  it('gives byte for byte the list and counts of one thread, whatever the number of workers', async () => {
    const list = Uint32Array.from([...randomList(300_000, 1 << 20, 4), 2 ** 32 - 1, 0, 2 ** 32 - 1]);
    const single = await runFilterChain(radixSortUint32(list.slice()), chain, context);
    const sharedCopy = () => {
      const copy = new Uint32Array(new SharedArrayBuffer(list.byteLength));
      copy.set(list);
      return copy;
    };
    for (const [workers, input] of [1, 2, 3, 4].flatMap((w) => [
      [w, () => list.slice()] as const,
      [w, sharedCopy] as const,
    ])) {
      const parallel = await runFilterChainParallel(input(), chain, context, { workers });
      expect(
        Buffer.from(parallel.kept.buffer, parallel.kept.byteOffset, parallel.kept.byteLength).equals(
          Buffer.from(single.kept.buffer, single.kept.byteOffset, single.kept.byteLength),
        ),
      ).toBe(true);
      expect(parallel.removed).toEqual(single.removed);
    }
    expect(single.removed.already_sent).toBeGreaterThan(0);
    expect(single.removed.blacklisted).toBeGreaterThan(0);
  });

  it('with record, hands back the removed sets of one thread, every link complete, whatever the workers', async () => {
    // A link after the merge too: its set comes after the in-worker links', as in chain order.
    const odd: RecipientFilter = {
      name: 'odd',
      reason: 'targeting',
      apply: async (uins) => uins.filter((u) => u % 2 === 1),
    };
    const recorded = [...chain, odd];
    // Repeats of every kind: pairs, a uin given 5 times, copies of blacklisted and already-sent uins.
    const list = Uint32Array.from([...randomList(200_000, 1 << 19, 7), 9, 9, 9, 9, 9, 2 ** 32 - 1, 2 ** 32 - 1]);
    const single = await runFilterChain(radixSortUint32(list.slice()), recorded, context, { record: true });
    const asBytes = (sets: ChainResult['removedSets']) =>
      sets!.map((s) => [s.reason, Buffer.from(s.uins.buffer, s.uins.byteOffset, s.uins.byteLength).toString('hex')]);
    for (const workers of [1, 2, 4]) {
      const parallel = await runFilterChainParallel(list.slice(), recorded, context, { workers, record: true });
      expect(parallel.complete).toBe(true);
      expect(asBytes(parallel.removedSets)).toEqual(asBytes(single.removedSets));
      expect([...parallel.kept]).toEqual([...single.kept]);
      expect(parallel.removed).toEqual(single.removed);
    }
    expect(single.removedSets!.map((s) => [s.reason, s.uins.length > 0])).toEqual([
      ['duplicate', true],
      ['blacklisted', true],
      ['already_sent', true],
      ['targeting', true],
    ]);
    expect(single.removedSets!.map((s) => s.uins.length)).toEqual([
      single.removed.duplicate,
      single.removed.blacklisted,
      single.removed.already_sent,
      single.removed.targeting,
    ]);
  });

  it('gives the list of one thread for lists crowded into a few values, or spread over every bit', async () => {
    const next = mulberry32(11);
    const lists = {
      crowded: Uint32Array.from({ length: 100_000 }, () => 2 ** 31 + (next() % 700)),
      'one uin': new Uint32Array(50_000).fill(123_456),
      'two far apart': Uint32Array.from({ length: 50_000 }, (_, i) => (i % 3 === 0 ? 0 : 2 ** 32 - 1)),
      'every bit': Uint32Array.from({ length: 100_000 }, () => next() >>> 0),
      empty: new Uint32Array(0),
    };
    for (const [name, list] of Object.entries(lists)) {
      const single = await runFilterChain(radixSortUint32(list.slice()), chain, context);
      const parallel = await runFilterChainParallel(list.slice(), chain, context, { workers: 3 });
      expect({ name, kept: [...parallel.kept], removed: parallel.removed }).toEqual({
        name,
        kept: [...single.kept],
        removed: single.removed,
      });
    }
  });

  it('without record, hands back no removed sets', async () => {
    const parallel = await runFilterChainParallel(randomList(10_000, 5000, 8), chain, context, { workers: 2 });
    expect(parallel.removedSets).toBeUndefined();
    expect(parallel.removed.duplicate).toBeGreaterThan(0);
  });

  it('stops reading the sets once no range has anyone left', async () => {
    let pulled = 0;
    const all = buildFilterChain({
      blacklists: { global: async () => undefined, forAccount: async () => undefined },
      ledger: {
        async *audiencesOf() {
          for (;;) {
            pulled++;
            yield Uint32Array.of(1, 2, 3);
          }
        },
      },
    });
    const { kept, removed } = await runFilterChainParallel(Uint32Array.of(3, 1, 2, 1), all, context, { workers: 2 });
    expect(kept.length).toBe(0);
    expect(removed).toEqual({ duplicate: 1, blacklisted: 0, already_sent: 3 });
    expect(pulled).toBe(1);
  });

  it('runs a chain that does not start with dedupe on this thread', async () => {
    const only: RecipientFilter = {
      name: 'odd',
      reason: 'targeting',
      apply: async (uins) => uins.filter((u) => u % 2 === 1),
    };
    const { kept, removed } = await runFilterChainParallel(Uint32Array.of(5, 2, 3), [only], context, { workers: 2 });
    expect([...kept]).toEqual([3, 5]);
    expect(removed).toEqual({ targeting: 1 });
  });

  it('passes on a failure to read a set, and ends its workers', async () => {
    const failing = buildFilterChain({
      blacklists: { global: async () => undefined, forAccount: async () => undefined },
      ledger: {
        // eslint-disable-next-line require-yield
        async *audiencesOf() {
          throw new Error('task store down');
        },
      },
    });
    await expect(runFilterChainParallel(Uint32Array.of(2, 1), failing, context, { workers: 2 })).rejects.toThrow(
      'task store down',
    );
  });
});
