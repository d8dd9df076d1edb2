import { makeTempDir, type TempDir } from '@herald/testing';
import { writeRecipientListFile } from './list-writer';
import { RunsCursor } from './runs-cursor';

let dir: TempDir;
beforeAll(async () => {
  dir = await makeTempDir('herald-runs-cursor-');
});
afterAll(async () => {
  await dir.remove();
});

describe('RunsCursor', () => {
  // Three sorted runs long enough to span several of the cursor's 4096-uin blocks each.
  const runOf = (uin: number) => ((uin * 2654435761) % 2 ** 32) % 3;
  const listed = Array.from({ length: 30_000 }, (_, i) => i * 2 + 1);
  const runs = [0, 1, 2].map((run) => listed.filter((uin) => runOf(uin) === run));
  const order = runs.flat();
  const bounds = runs.map((run, r) => {
    const start = runs.slice(0, r).reduce((n, x) => n + x.length, 0);
    return { start, end: start + run.length };
  });

  it.each([undefined, 20_001])(
    'answers from the blocks in hand as positionOf does, or asks for a read (after %s)',
    async (after) => {
      const path = `${dir.path}/order-${after ?? 0}`;
      await writeRecipientListFile(path, Uint32Array.from(order));
      const [inHand, alone] = [await RunsCursor.open(path, bounds, after), await RunsCursor.open(path, bounds, after)];
      try {
        let reads = 0;
        // Every uin from 0: the odd ones are in a run, the even ones in none.
        for (let uin = (after ?? -1) + 1; uin <= 60_001; uin++) {
          const quick = inHand.positionInHand(uin);
          if (quick === 'read') reads++;
          const answer = quick === 'read' ? await inHand.positionOf(uin) : quick;
          const expected = await alone.positionOf(uin);
          expect(answer).toEqual(expected);
          if (expected !== undefined) expect(order[expected.position]).toBe(uin);
        }
        // A read for each block of each run, not for each uin.
        expect(reads).toBeGreaterThan(0);
        expect(reads).toBeLessThan(60);
      } finally {
        await inHand.close();
        await alone.close();
      }
    },
  );
});
