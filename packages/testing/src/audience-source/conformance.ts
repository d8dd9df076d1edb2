import { isHeraldError } from '@herald/core';
import type { AudienceBatch, AudienceSource, BadRowCounts } from '@herald/core/ports';
import { spreadUins } from '../random';

/**
 * What the AudienceSource suite needs from an adapter's test file: a fresh
 * backend per test (its own database, table or directory) that it can seed
 * and then break.
 */
export interface AudienceSourceHarness {
  /**
   * Makes the backend hold exactly `uins` (distinct, in any order) as the
   * audience, and answers a source over it that yields at most `batchSize`
   * uins a batch. Called once per test.
   */
  seed(uins: readonly number[], options: { batchSize: number }): Promise<AudienceSource>;
  /** Takes the backend away under a running read (drop the table, close the store): the next read must fail, typed. */
  breakBackend(): Promise<void>;
  /** Removes what the harness made; also after breakBackend. */
  close(): Promise<void>;
}

export type AudienceSourceHarnessFactory = () => Promise<AudienceSourceHarness>;

const U32 = 2 ** 32;

/** Reads a whole stream: every uin, the batches' sizes, the bad rows by reason. */
export async function readAll(
  source: AudienceSource,
  uinLimit = U32,
): Promise<{ uins: number[]; sizes: number[]; bad: BadRowCounts }> {
  const uins: number[] = [];
  const sizes: number[] = [];
  const bad: BadRowCounts = {};
  for await (const batch of source.read({ uinLimit })) {
    expect(batch.uins).toBeInstanceOf(Uint32Array);
    sizes.push(batch.uins.length);
    uins.push(...batch.uins);
    for (const [reason, n] of Object.entries(batch.bad ?? {}))
      bad[reason as keyof BadRowCounts] = (bad[reason as keyof BadRowCounts] ?? 0) + (n ?? 0);
  }
  return { uins, sizes, bad };
}

function expectStrictlyAscending(uins: readonly number[]): void {
  for (let i = 1; i < uins.length; i++)
    if (!(uins[i]! > uins[i - 1]!))
      throw new Error(`uins not strictly ascending at ${i}: ${uins[i - 1]} then ${uins[i]}`);
}

/**
 * The AudienceSource contract (core ports/audience-source.ts) as tests.
 * Every adapter's test file calls it with a factory of fresh harnesses.
 *
 * @example
 *   audienceSourceConformance('followers on LevelFollowerStore', async () => {
 *     const dir = await makeTempDir('herald-followers-');
 *     const store = await LevelFollowerStore.open(dir.path);
 *     return {
 *       seed: async (uins, { batchSize }) => { await store.applyFollows(uins.map((uin) => ({ accountId: 'acme', uin, following: true, at: 1 }))); return store.followers('acme', { batchSize }); },
 *       breakBackend: () => store.close(),
 *       close: async () => { await store.close(); await dir.remove(); },
 *     };
 *   });
 */
export function audienceSourceConformance(name: string, open: AudienceSourceHarnessFactory): void {
  describe(`AudienceSource conformance: ${name}`, () => {
    let harness: AudienceSourceHarness | undefined;
    const use = async (): Promise<AudienceSourceHarness> => (harness = await open());
    afterEach(async () => {
      const opened = harness;
      harness = undefined;
      await opened?.close();
    });

    it('yields exactly the audience, strictly ascending, in batches of at most batchSize, the ends of the space included', async () => {
      const audience = [...spreadUins(7, 500), 0, U32 - 1, 1, 65_535, 65_536];
      const source = await (await use()).seed(audience, { batchSize: 64 });
      const { uins, sizes, bad } = await readAll(source);
      expectStrictlyAscending(uins);
      expect(uins).toEqual([...new Set(audience)].sort((a, b) => a - b));
      expect(Math.max(...sizes)).toBeLessThanOrEqual(64);
      expect(sizes.filter((n) => n > 0).length).toBeGreaterThanOrEqual(Math.ceil(uins.length / 64));
      expect(bad).toEqual({});
    });

    it('counts uins at or above uinLimit as out_of_range instead of yielding them', async () => {
      const limit = 2 ** 20;
      const audience = [3, 9, limit - 1, limit, limit + 1, 2 ** 31];
      const source = await (await use()).seed(audience, { batchSize: 2 });
      const { uins, bad } = await readAll(source, limit);
      expect(uins).toEqual([3, 9, limit - 1]);
      expect(bad).toEqual({ out_of_range: 3 });
    });

    it('yields no uin for an empty audience', async () => {
      const source = await (await use()).seed([], { batchSize: 10 });
      const { uins, bad } = await readAll(source);
      expect(uins).toEqual([]);
      expect(bad).toEqual({});
    });

    it('describes itself in plain JSON and can be read again, the same', async () => {
      const source = await (await use()).seed([5, 1, 3], { batchSize: 2 });
      expect(typeof source.kind).toBe('string');
      expect(JSON.parse(JSON.stringify(source.description))).toEqual(source.description);
      expect((await readAll(source)).uins).toEqual([1, 3, 5]);
      expect((await readAll(source)).uins).toEqual([1, 3, 5]);
    });

    it('lets go of what a read holds when the reader stops early, so many early stops leave it usable', async () => {
      const source = await (
        await use()
      ).seed(
        Array.from({ length: 100 }, (_, i) => i * 3),
        { batchSize: 10 },
      );
      for (let round = 0; round < 12; round++) {
        for await (const batch of source.read({ uinLimit: U32 })) {
          expect(batch.uins.length).toBeGreaterThan(0);
          break;
        }
      }
      expect((await readAll(source)).uins).toHaveLength(100);
    });

    it('stops at an aborted signal with its reason', async () => {
      const source = await (
        await use()
      ).seed(
        Array.from({ length: 50 }, (_, i) => i),
        { batchSize: 10 },
      );
      const controller = new AbortController();
      const reason = new Error('stop');
      const seen: AudienceBatch[] = [];
      const reading = (async () => {
        for await (const batch of source.read({ uinLimit: U32, signal: controller.signal })) {
          seen.push(batch);
          controller.abort(reason);
        }
      })();
      await expect(reading).rejects.toBe(reason);
      expect(seen.length).toBeLessThan(5);
    });

    it('fails half way with a typed HeraldError, never a raw driver error', async () => {
      const opened = await use();
      // Spread over the space, so the rest of the audience is still to be read from the backend.
      const source = await opened.seed(
        Array.from({ length: 300 }, (_, i) => i * 1_000_003),
        { batchSize: 10 },
      );
      const seen: number[] = [];
      let failure: unknown;
      try {
        for await (const batch of source.read({ uinLimit: U32 })) {
          seen.push(...batch.uins);
          if (seen.length > 0 && seen.length <= 10) await opened.breakBackend();
        }
      } catch (error) {
        failure = error;
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.length).toBeLessThan(300);
      expect(isHeraldError(failure)).toBe(true);
    });
  });
}
