import { compileFrequencyPolicy, type FrequencyCounter } from '@herald/core';
import { buildFilterChain } from './chain';
import { runFilterChain } from './filter';

describe('buildFilterChain', () => {
  const sources = {
    blacklists: { global: async () => Uint32Array.of(3), forAccount: async () => Uint32Array.of(5) },
    ledger: {
      async *audiencesOf() {
        yield Uint32Array.of(1, 7);
      },
    },
  };

  it('runs dedupe, then blacklist, then no-resend', () => {
    const chain = buildFilterChain(sources);
    expect(chain.map((f) => f.name)).toEqual(['dedupe', 'blacklist', 'no-resend']);
    expect(chain.map((f) => f.reason)).toEqual(['duplicate', 'blacklisted', 'already_sent']);
  });

  it('runs the frequency quota last, when given, and only on what the others kept', async () => {
    const asked: number[][] = [];
    // Users 2 and 8 used 6 today: over any budget. 13:00 UTC: three slots released for everyone.
    const counter = {
      used: async (uins: Uint32Array) => (asked.push([...uins]), Uint32Array.from(uins, (u) => (u === 2 || u === 8 ? 6 : 0))),
    } as unknown as FrequencyCounter;
    const chain = buildFilterChain({ ...sources, frequency: { policy: compileFrequencyPolicy(), counter, clock: { now: () => Date.UTC(2024, 2, 10, 13) } } });
    expect(chain.map((f) => f.reason)).toEqual(['duplicate', 'blacklisted', 'already_sent', 'over_frequency']);
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 1, 2, 3, 3, 5, 7, 8, 9), chain, { taskId: 2, accountId: 'acme', contentCrc: 1 });
    expect([...kept]).toEqual([9]);
    expect(removed).toEqual({ duplicate: 2, blacklisted: 2, already_sent: 2, over_frequency: 2 });
    expect(asked).toEqual([[2, 8, 9]]);
  });

  it('filters a sorted list end to end', async () => {
    const { kept, removed } = await runFilterChain(Uint32Array.of(1, 1, 2, 3, 3, 5, 7, 8), buildFilterChain(sources), {
      taskId: 2,
      accountId: 'acme',
      contentCrc: 1,
    });
    expect([...kept]).toEqual([2, 8]);
    expect(removed).toEqual({ duplicate: 2, blacklisted: 2, already_sent: 2 });
  });
});
