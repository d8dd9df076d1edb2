import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { dayOf } from '@herald/core/frequency';
import type { FrequencyCounter } from '@herald/core/ports';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { ChainSources } from './filters/chain';
import { createRecipientPreview } from './preview';

const config = compileConfig({ uinSpaceBits: 20 });
let dir: TempDir;
let lists: ListRepository;

beforeEach(async () => {
  dir = await makeTempDir('herald-preview-');
  lists = new ListRepository(dir.path);
});
afterEach(async () => {
  await dir.remove();
});

const DAY = 86_400_000;

/** Sources that answer from memory, recording what they are asked. */
function sources(calls: string[]): ChainSources {
  const counter = {
    async used(uins: Uint32Array, day: number) {
      calls.push(`frequency day ${day}`);
      return new Uint8Array(uins.length);
    },
    async consume() {
      calls.push('consume');
    },
  } as unknown as FrequencyCounter;
  return {
    blacklists: { global: async () => Uint32Array.of(1), forAccount: async () => undefined },
    ledger: {
      async *audiencesOf(accountId, contentCrc, exceptTaskId) {
        calls.push(`ledger ${accountId} ${contentCrc} except ${exceptTaskId}`);
        yield Uint32Array.of(2);
      },
    },
    targeting: {
      index: {} as never,
      // What a real run reads from its task; a preview must not ask.
      queryOf: async () => {
        calls.push('queryOf');
        return undefined;
      },
    },
    frequency: {
      policy: config.frequency.policy,
      counter,
      clock: {
        now: () => {
          calls.push('frequency clock');
          return 0;
        },
      },
    },
  };
}

describe('createRecipientPreview', () => {
  it('runs the chain over the list with no task: no-resend leaves out task 0, targeting comes from the request, frequency is judged at the send time', async () => {
    await writeRecipientListFile(lists.pathOf('l_1'), Uint32Array.of(5, 1, 2, 3, 3, 4));
    const calls: string[] = [];
    const preview = createRecipientPreview({ config, lists, sources: sources(calls), clock: { now: () => 1000 } });
    const sendAt = 2 * DAY + 5000;
    const answer = await preview({ accountId: 'acme', listId: 'l_1', contentCrc: 77, sendAt });
    expect(answer).toMatchObject({ listed: 6, removed: { duplicate: 1, blacklisted: 1, already_sent: 1 } });
    expect(answer.kept + (answer.removed.over_frequency ?? 0)).toBe(3);
    // The task's own targeting query is never read, nothing is consumed, and frequency is judged on the send time's day.
    expect(calls).toEqual(['ledger acme 77 except 0', `frequency day ${dayOf(config.frequency.policy, sendAt)}`]);
  });

  it("counts a larger list's duplicates exactly, samples its distinct recipients for the other links and scales their counts", async () => {
    // 1..1000, each twice: half the list repeats, blacklist and ledger remove one uin each.
    const uins = new Uint32Array(2000).map((_, i) => (i % 1000) + 1);
    await writeRecipientListFile(lists.pathOf('l_big'), uins);
    const preview = createRecipientPreview({
      config,
      lists,
      sources: {
        blacklists: { global: async () => Uint32Array.of(1), forAccount: async () => undefined },
        ledger: { async *audiencesOf() {} },
      },
      exactMax: 500,
    });
    const answer = await preview({ accountId: 'acme', listId: 'l_big', contentCrc: 1, sendAt: 0 });
    expect(answer.listed).toBe(2000);
    expect(answer.sampled).toBe(500);
    expect(answer.kept + Object.values(answer.removed).reduce((a, b) => a + (b ?? 0), 0)).toBe(2000);
    expect(answer.removed.blacklisted).toBe(2);
    // Duplicates are counted over the whole list, not estimated from the sample (which would see almost none).
    expect(answer.removed.duplicate).toBe(1000);
    expect(answer.kept).toBe(998);
  });
});
