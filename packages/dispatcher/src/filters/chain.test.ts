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
