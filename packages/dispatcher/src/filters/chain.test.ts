import { join } from 'node:path';
import * as fc from 'fast-check';
import { compileFrequencyPolicy } from '@herald/core/frequency';
import type { FilterReason } from '@herald/core/task';
import type { FrequencyCounter } from '@herald/core/ports';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { buildFilterChain, type ChainSources } from './chain';
import { runFilterChain, type ChainResult, type FilterContext } from './filter';
import { runFilterChainParallel } from './parallel';

const context: FilterContext = { taskId: 2, accountId: 'acme', contentCrc: 1 };

const sources: ChainSources = {
  blacklists: { global: async () => Uint32Array.of(3), forAccount: async () => Uint32Array.of(5) },
  ledger: {
    async *audiencesOf() {
      yield Uint32Array.of(1, 7);
    },
  },
};

/** Users 2 and 8 used 6 today: over any budget. 13:00 UTC: three slots released for everyone. */
function frequencyOver(over: readonly number[], asked: number[][] = []): ChainSources['frequency'] {
  const counter = {
    used: async (uins: Uint32Array) => (
      asked.push([...uins]),
      Uint32Array.from(uins, (u) => (over.includes(u) ? 6 : 0))
    ),
  } as unknown as FrequencyCounter;
  return { policy: compileFrequencyPolicy(), counter, clock: { now: () => Date.UTC(2024, 2, 10, 13) } };
}

/** Everyone is kept + removed: the chain's counts reconcile with its input. */
function expectReconciled(total: number, { kept, removed }: ChainResult): void {
  expect(kept.length + Object.values(removed).reduce((a, b) => a + (b ?? 0), 0)).toBe(total);
}

describe('buildFilterChain', () => {
  it('runs dedupe, then blacklist, then no-resend', () => {
    const chain = buildFilterChain(sources);
    expect(chain.map((f) => f.name)).toEqual(['dedupe', 'blacklist', 'no-resend']);
    expect(chain.map((f) => f.reason)).toEqual(['duplicate', 'blacklisted', 'already_sent']);
  });

  it('puts the follower check and the targeting condition after no-resend and before frequency', () => {
    const chain = buildFilterChain({
      ...sources,
      followers: { followersOnly: async () => true, filterFollowers: async (_, uins) => uins },
      targeting: { index: {} as never, queryOf: async () => undefined },
      frequency: frequencyOver([]),
    });
    expect(chain.map((f) => f.name)).toEqual([
      'dedupe',
      'blacklist',
      'no-resend',
      'follower-check',
      'targeting',
      'frequency',
    ]);
    expect(chain.map((f) => f.reason)).toEqual([
      'duplicate',
      'blacklisted',
      'already_sent',
      'not_follower',
      'targeting',
      'over_frequency',
    ]);
  });

  it('runs the frequency quota last, when given, and only on what the others kept', async () => {
    const asked: number[][] = [];
    const chain = buildFilterChain({ ...sources, frequency: frequencyOver([2, 8], asked) });
    expect(chain.map((f) => f.reason)).toEqual(['duplicate', 'blacklisted', 'already_sent', 'over_frequency']);
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 1, 2, 3, 3, 5, 7, 8, 9), chain, context);
    expect([...kept]).toEqual([9]);
    expect(removed).toEqual({ duplicate: 2, blacklisted: 2, already_sent: 2, over_frequency: 2 });
    expect(asked).toEqual([[2, 8, 9]]);
  });

  it('filters a sorted list end to end', async () => {
    const { kept, removed } = await runFilterChain(
      Uint32Array.of(1, 1, 2, 3, 3, 5, 7, 8),
      buildFilterChain(sources),
      context,
    );
    expect([...kept]).toEqual([2, 8]);
    expect(removed).toEqual({ duplicate: 2, blacklisted: 2, already_sent: 2 });
  });
});

describe('the full chain on a crafted list', () => {
  let dir: TempDir;
  let index: LevelAttributeIndex;
  beforeAll(async () => {
    dir = await makeTempDir('herald-chain-');
    index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
    // Users 10..29: the even ones are vip; 21 and 23 are vip too.
    await index.putUsers(
      Array.from({ length: 20 }, (_, i) => ({
        uin: 10 + i,
        tags: (10 + i) % 2 === 0 || i === 11 || i === 13 ? ['vip'] : [],
      })),
    );
  });
  afterAll(async () => {
    await index.close();
    await dir.remove();
  });

  /**
   * 10..29 twice over, plus 10 and 11 once more (22 duplicates); blacklisted
   * 12 (global) and 13 (own); 14 and 15 already got the content; followers are
   * 10..25 (so 26..29 are not); vip: even uins, 21 and 23; 16 and 18 are over
   * frequency. Each link's share is exact.
   */
  const list = Uint32Array.from([
    ...Array.from({ length: 20 }, (_, i) => 29 - i),
    ...Array.from({ length: 20 }, (_, i) => 10 + i),
    10,
    11,
  ]);
  const followers = new Set(Array.from({ length: 16 }, (_, i) => 10 + i));
  const chainFor = (followersOnly: boolean, query: string | undefined, checked: string[] = []) =>
    buildFilterChain({
      blacklists: {
        global: async () => Uint32Array.of(12, 1000),
        forAccount: async (account) => (account === 'acme' ? Uint32Array.of(13) : undefined),
      },
      ledger: {
        async *audiencesOf() {
          yield Uint32Array.of(14);
          yield Uint32Array.of(15, 2000);
        },
      },
      followers: {
        followersOnly: async (account) => (checked.push(account), followersOnly),
        filterFollowers: async (_, uins) => uins.filter((u) => followers.has(u)),
      },
      targeting: { index, queryOf: async ({ taskId }) => (taskId === context.taskId ? query : undefined) },
      frequency: frequencyOver([16, 18]),
    });

  it('removes exactly what each link should, counted under its reason', async () => {
    const checked: string[] = [];
    const result = await runFilterChain(list.slice().sort(), chainFor(true, 'tag:vip', checked), context);
    // Left after no-resend: 10, 11, 16..29. Not followers: 26..29. Not vip: 11, 17, 19, 25. Over frequency: 16, 18.
    expect([...result.kept]).toEqual([10, 20, 21, 22, 23, 24]);
    expect(result.removed).toEqual({
      duplicate: 22,
      blacklisted: 2,
      already_sent: 2,
      not_follower: 4,
      targeting: 4,
      over_frequency: 2,
    });
    expect(checked).toEqual(['acme']);
    expectReconciled(list.length, result);
  });

  it('leaves out the follower check for an account that is not followers-only, and targeting for an untargeted task', async () => {
    const result = await runFilterChain(list.slice().sort(), chainFor(false, undefined), context);
    expect([...result.kept]).toEqual([
      10,
      11,
      ...Array.from({ length: 14 }, (_, i) => 16 + i).filter((u) => u !== 16 && u !== 18),
    ]);
    expect(result.removed).toEqual({ duplicate: 22, blacklisted: 2, already_sent: 2, over_frequency: 2 });
    expectReconciled(list.length, result);
  });

  it('gives the same list and counts from worker threads', async () => {
    for (const workers of [1, 2, 3]) {
      const parallel = await runFilterChainParallel(list.slice(), chainFor(true, 'tag:vip'), context, { workers });
      const single = await runFilterChain(list.slice().sort(), chainFor(true, 'tag:vip'), context);
      expect([...parallel.kept]).toEqual([...single.kept]);
      expect(parallel.removed).toEqual(single.removed);
    }
  });
});

describe('the chain (property)', () => {
  const uin = fc.integer({ min: 0, max: 300 });
  const set = fc.uniqueArray(uin, { maxLength: 60 }).map((values) => Uint32Array.from(values).sort());

  it('reconciles its counts with its input, keeps what no link removes, and gives the same from worker threads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          list: fc.array(uin, { maxLength: 400 }),
          global: set,
          own: set,
          sent: fc.array(set, { maxLength: 3 }),
          followers: fc.option(set, { nil: undefined }),
          over: fc.uniqueArray(uin, { maxLength: 30 }),
          workers: fc.integer({ min: 1, max: 3 }),
        }),
        async ({ list, global, own, sent, followers, over, workers }) => {
          const chain = buildFilterChain({
            blacklists: { global: async () => global, forAccount: async () => own },
            ledger: {
              async *audiencesOf() {
                yield* sent;
              },
            },
            followers: {
              followersOnly: async () => followers !== undefined,
              filterFollowers: async (_, uins) => uins.filter((u) => followers!.includes(u)),
            },
            frequency: frequencyOver(over),
          });
          const single = await runFilterChain(Uint32Array.from(list).sort(), chain, context);
          expectReconciled(list.length, single);
          const removedBy = new Set([...global, ...own, ...sent.flatMap((s) => [...s]), ...over]);
          const expected = [...new Set(list)]
            .filter((u) => !removedBy.has(u) && (followers === undefined || followers.includes(u)))
            .sort((a, b) => a - b);
          expect([...single.kept]).toEqual(expected);
          expect(single.removed.duplicate).toBe(list.length - new Set(list).size);
          expect('not_follower' in single.removed).toBe(followers !== undefined);
          const parallel = await runFilterChainParallel(Uint32Array.from(list), chain, context, { workers });
          expect([...parallel.kept]).toEqual([...single.kept]);
          expect(parallel.removed).toEqual(single.removed);
          for (const reason of Object.keys(single.removed))
            expect(single.removed[reason as FilterReason]).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
