import { mulberry32 } from '@herald/core';
import { radixSortUint32 } from '@herald/core/uins';
import { buildFilterChain } from './chain';
import { runFilterChain, type ChainResult, type FilterContext, type RecipientFilter } from './filter';
import { hashPart, lowerBound, mergeSorted, takePart } from './chunks';
import { runFilterChainParallel } from './parallel';

const context: FilterContext = { taskId: 3, accountId: 'acme', contentCrc: 9 };

/** n uins from a seeded generator over [0, range), repeats included. */
function randomList(n: number, range: number, seed: number): Uint32Array {
  const next = mulberry32(seed);
  return Uint32Array.from({ length: n }, () => next() % range);
}

describe('takePart', () => {
  it('puts every copy of a uin in one chunk, spreads neighbours, and loses nothing', () => {
    const list = randomList(50_000, 20_000, 1);
    const chunks = [0, 1, 2].map((part) => takePart(list, part, 3));
    chunks.forEach((chunk, part) => chunk.forEach((u) => expect(hashPart(u, 3)).toBe(part)));
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(list.length);
    for (const chunk of chunks) expect(chunk.length).toBeGreaterThan(list.length / 4);
    // Consecutive uins (a dense range) are spread too.
    for (const part of [0, 1])
      expect(
        takePart(
          Uint32Array.from({ length: 30_000 }, (_, i) => i),
          part,
          2,
        ).length,
      ).toBeGreaterThan(14_000);
  });

  it('keeps list order, and makes room for a chunk far over its share', () => {
    const same = Uint32Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? 77 : 78 + (i % 5)));
    const part = hashPart(77, 4);
    const taken = takePart(same, part, 4);
    expect([...taken]).toEqual([...same].filter((u) => hashPart(u, 4) === part));
    expect(taken.length).toBeGreaterThanOrEqual(5000);
  });
});

describe('lowerBound', () => {
  it('finds the first index at or above a value', () => {
    const sorted = Uint32Array.of(2, 4, 4, 9);
    expect([0, 2, 3, 4, 5, 9, 10, 2 ** 32].map((v) => lowerBound(sorted, v))).toEqual([0, 0, 1, 1, 3, 3, 4, 4]);
  });
});

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
    for (const [workers, input] of [1, 2, 4].flatMap((w) => [
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

  it('without record, hands back no removed sets', async () => {
    const parallel = await runFilterChainParallel(randomList(10_000, 5000, 8), chain, context, { workers: 2 });
    expect(parallel.removedSets).toBeUndefined();
    expect(parallel.removed.duplicate).toBeGreaterThan(0);
  });

  it('stops reading the sets once no chunk has anyone left', async () => {
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
