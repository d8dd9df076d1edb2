import { join } from 'node:path';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { AttributeIndex } from '@herald/core/ports';
import { valuePerPosition } from './user-zones';

const KEYS = ['tz=America/New_York', 'tz=Asia/Tokyo', 'tz=Europe/Berlin', 'tz=UTC'];
const DEFAULT = 9;

/** A deterministic spread: uins over the whole 2^32 space, so a walk crosses many reads. */
function spread(count: number, seed: number): number[] {
  let state = seed;
  const uins = new Set<number>();
  while (uins.size < count) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    uins.add(state);
  }
  return [...uins];
}

describe('valuePerPosition', () => {
  let dir: TempDir;
  let index: LevelAttributeIndex;
  const zoned = new Map<number, number>();
  const users = spread(4000, 7);

  beforeAll(async () => {
    dir = await makeTempDir('herald-user-zones-');
    index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
    // Every 5th user has no zone; a crowd in one chunk is stored dense.
    const crowd = Array.from({ length: 5000 }, (_, i) => 2 ** 31 + i * 3);
    const all = [...users, ...crowd];
    all.forEach((uin, i) => {
      if (i % 5 !== 4) zoned.set(uin, (uin >>> 3) % KEYS.length);
    });
    for (let at = 0; at < all.length; at += 1000) {
      await index.putUsers(
        all.slice(at, at + 1000).map((uin) => {
          const k = zoned.get(uin);
          return k === undefined ? { uin } : { uin, tz: KEYS[k]!.slice('tz='.length) };
        }),
      );
    }
  });

  afterAll(async () => {
    await index?.close();
    await dir?.remove();
  });

  /** The index, counting its readChunks calls and the widest window asked for. */
  function counted(): { index: AttributeIndex; reads: number; widest: number } {
    const seen = { index: index as AttributeIndex, reads: 0, widest: 0 };
    seen.index = Object.create(index, {
      readChunks: {
        value: (keys: readonly string[], from: number, to: number) => {
          seen.reads++;
          seen.widest = Math.max(seen.widest, to - from);
          return index.readChunks(keys, from, to);
        },
      },
    }) as AttributeIndex;
    return seen;
  }

  it("sets each recipient's zone value over the whole uin space, the default where it has none", async () => {
    // Half the users, the crowd's every other one, and uins the index does not know.
    const strangers = spread(500, 99).filter((uin) => !zoned.has(uin));
    const crowdHalf = Array.from({ length: 2500 }, (_, i) => 2 ** 31 + i * 6);
    const kept = Uint32Array.from(
      new Set([...users.filter((_, i) => i % 2 === 0), ...crowdHalf, ...strangers, 0, 2 ** 32 - 1]),
    ).sort();
    const reading = counted();
    const values = [10, 20, 30, 40];
    const valueAt = await valuePerPosition(
      kept,
      KEYS,
      values,
      reading.index,
      new Uint8Array(kept.length).fill(DEFAULT),
    );
    const expected = [...kept].map((uin) => {
      const k = zoned.get(uin);
      return k === undefined ? DEFAULT : values[k]!;
    });
    expect([...valueAt]).toEqual(expected);
    // Windows widen over a sparse audience: far fewer reads than the 256 of 2^24 uins each.
    expect(reading.reads).toBeLessThan(64);
    expect(reading.widest).toBeGreaterThan(256);
  });

  it('reads only the chunks the audience spans', async () => {
    const kept = Uint32Array.from(users.filter((uin) => uin < 2 ** 20)).sort();
    const reading = counted();
    await valuePerPosition(kept, KEYS, [1, 2, 3, 4], reading.index, new Uint8Array(kept.length));
    expect(reading.widest).toBeLessThanOrEqual(2 ** 20 / 2 ** 16);
    const none = counted();
    const empty = await valuePerPosition(new Uint32Array(0), KEYS, [1, 2, 3, 4], none.index, new Uint8Array(0));
    expect(empty.length).toBe(0);
    expect(none.reads).toBe(0);
  });

  it('fails when a read fails, whichever window it was', async () => {
    const kept = Uint32Array.from(users).sort();
    let calls = 0;
    const failing = Object.create(index, {
      readChunks: {
        value: (keys: readonly string[], from: number, to: number) =>
          ++calls === 3 ? Promise.reject(new Error('disk gone')) : index.readChunks(keys, from, to),
      },
    }) as AttributeIndex;
    await expect(valuePerPosition(kept, KEYS, [1, 2, 3, 4], failing, new Uint8Array(kept.length))).rejects.toThrow(
      'disk gone',
    );
  });
});
