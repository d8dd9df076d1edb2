import { noResendFilter, type SentLedger } from './no-resend';

const context = { taskId: 9, accountId: 'acme', contentCrc: 0xabc };

/** A fake ledger yielding the given audiences; records the query and how many were pulled. */
function ledger(audiences: number[][]): SentLedger & { queries: unknown[][]; pulled: number } {
  const fake = {
    queries: [] as unknown[][],
    pulled: 0,
    async *audiencesOf(accountId: string, contentCrc: number, exceptTaskId: number) {
      fake.queries.push([accountId, contentCrc, exceptTaskId]);
      for (const audience of audiences) {
        fake.pulled++;
        yield Uint32Array.from(audience);
      }
    },
  };
  return fake;
}

describe('noResendFilter', () => {
  it('is the already_sent link', () => {
    const filter = noResendFilter(ledger([]));
    expect(filter.name).toBe('no-resend');
    expect(filter.reason).toBe('already_sent');
  });

  it('asks the ledger for the account and content, excluding the task itself', async () => {
    const fake = ledger([]);
    await noResendFilter(fake).apply(Uint32Array.of(1), context);
    expect(fake.queries).toEqual([['acme', 0xabc, 9]]);
  });

  it('subtracts every earlier audience', async () => {
    const fake = ledger([[1, 4], [2], [4, 7, 50]]);
    const kept = await noResendFilter(fake).apply(Uint32Array.of(1, 2, 3, 4, 5, 6, 7), context);
    expect([...kept]).toEqual([3, 5, 6]);
    expect(fake.pulled).toBe(3);
  });

  it('keeps everyone when nothing was sent before', async () => {
    expect([...(await noResendFilter(ledger([])).apply(Uint32Array.of(1, 2), context))]).toEqual([1, 2]);
  });

  it('stops reading the ledger once nobody is left', async () => {
    const fake = ledger([[1], [2, 3], [4], [5]]);
    const kept = await noResendFilter(fake).apply(Uint32Array.of(1, 2, 3), context);
    expect(kept.length).toBe(0);
    expect(fake.pulled).toBe(2);
  });
});
