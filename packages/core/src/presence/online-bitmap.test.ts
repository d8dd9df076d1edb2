import { TypedArrayBitmap } from './online-bitmap';
import { seededRandom } from '../random';
import { bitAt, onlineBitsOf } from '../fate/positions';

describe('TypedArrayBitmap', () => {
  it('starts with everyone offline', () => {
    const bitmap = new TypedArrayBitmap(1000);
    expect(bitmap.uinLimit).toBe(1000);
    for (let uin = 0; uin < 1000; uin++) expect(bitmap.isOnline(uin)).toBe(false);
  });

  it('sets and clears single bits without touching their neighbours', () => {
    const bitmap = new TypedArrayBitmap(256);
    const on = [0, 1, 30, 31, 32, 63, 64, 200, 255];
    for (const uin of on) bitmap.setOnline(uin, true);
    for (let uin = 0; uin < 256; uin++) expect([uin, bitmap.isOnline(uin)]).toEqual([uin, on.includes(uin)]);
    bitmap.setOnline(31, false); // bit 31: the sign bit of its word
    bitmap.setOnline(64, false);
    bitmap.setOnline(64, false); // clearing twice is harmless
    bitmap.setOnline(0, true); // setting twice is harmless
    const still = on.filter((uin) => uin !== 31 && uin !== 64);
    for (let uin = 0; uin < 256; uin++) expect([uin, bitmap.isOnline(uin)]).toEqual([uin, still.includes(uin)]);
  });

  it('works up to the last uin of a limit that is not a multiple of 32', () => {
    const bitmap = new TypedArrayBitmap(70);
    bitmap.setOnline(69, true);
    expect(bitmap.isOnline(69)).toBe(true);
    expect(bitmap.isOnline(68)).toBe(false);
    expect(bitmap.isOnline(70)).toBe(false);
  });

  it.each([-1, 100, 101, 2 ** 32, 1.5, Number.NaN])('throws RangeError for uin %p outside [0, 100)', (uin) => {
    const bitmap = new TypedArrayBitmap(100);
    expect(() => bitmap.setOnline(uin, true)).toThrow(RangeError);
    expect(() => bitmap.setOnline(uin, false)).toThrow(RangeError);
  });

  it('reports uins at or above the limit as offline', () => {
    const bitmap = new TypedArrayBitmap(64);
    for (let uin = 0; uin < 64; uin++) bitmap.setOnline(uin, true);
    expect(bitmap.isOnline(64)).toBe(false);
    expect(bitmap.isOnline(1000)).toBe(false);
  });

  it('partitions uins into online and offline, preserving order', () => {
    const bitmap = new TypedArrayBitmap(1 << 16);
    for (let uin = 0; uin < 1 << 16; uin += 3) bitmap.setOnline(uin, true);
    const uins = Uint32Array.of(9, 1, 3, 65535, 4, 0, 65534, 6, 6, 2);
    const online = new Uint32Array(uins.length);
    const offline = new Uint32Array(uins.length);
    // Online: the multiples of 3 (65535 = 3 * 21845).
    expect(bitmap.partition(uins, online, offline)).toEqual({ online: 6, offline: 4 });
    expect(Array.from(online.subarray(0, 6))).toEqual([9, 3, 65535, 0, 6, 6]);
    expect(Array.from(offline.subarray(0, 4))).toEqual([1, 4, 65534, 2]);
  });

  it('partitions a large random list like a filter on isOnline', () => {
    const limit = 1 << 20;
    const bitmap = new TypedArrayBitmap(limit);
    const random = seededRandom(12345);
    const online0 = new Set<number>();
    for (let i = 0; i < 100_000; i++) {
      const uin = Math.floor(random() * limit);
      online0.add(uin);
      bitmap.setOnline(uin, true);
    }
    const uins = Uint32Array.from({ length: 50_000 }, () => Math.floor(random() * limit));
    const online = new Uint32Array(uins.length);
    const offline = new Uint32Array(uins.length);
    const counts = bitmap.partition(uins, online, offline);
    const expectedOnline = Array.from(uins).filter((u) => online0.has(u));
    const expectedOffline = Array.from(uins).filter((u) => !online0.has(u));
    expect(counts).toEqual({ online: expectedOnline.length, offline: expectedOffline.length });
    expect(counts.online).toBeGreaterThan(0);
    expect(counts.offline).toBeGreaterThan(0);
    expect(Array.from(online.subarray(0, counts.online))).toEqual(expectedOnline);
    expect(Array.from(offline.subarray(0, counts.offline))).toEqual(expectedOffline);
  });

  it('sets the bits of the online positions in the same pass, as onlineBitsOf works them out', () => {
    const limit = 1 << 20;
    const bitmap = new TypedArrayBitmap(limit);
    const random = seededRandom(777);
    for (let i = 0; i < 300_000; i++) bitmap.setOnline(Math.floor(random() * limit), true);
    // A batch as the executors get one: sorted and distinct, of a length that is not a multiple of 8.
    const uins = Uint32Array.from(new Set(Array.from({ length: 4_099 }, () => Math.floor(random() * limit)))).sort();
    const online = new Uint32Array(uins.length);
    const offline = new Uint32Array(uins.length);
    const bits = new Uint8Array((uins.length + 7) >>> 3);
    const counts = bitmap.partition(uins, online, offline, bits);
    expect(counts.online).toBeGreaterThan(0);
    expect(counts.offline).toBeGreaterThan(0);
    expect(Array.from(bits)).toEqual(Array.from(onlineBitsOf(uins, online.subarray(0, counts.online))));
    for (let i = 0; i < uins.length; i++) expect([i, bitAt(bits, i)]).toEqual([i, bitmap.isOnline(uins[i]!)]);
  });

  it('refuses a bitset too short for the batch, before it splits anything', () => {
    const bitmap = new TypedArrayBitmap(64);
    bitmap.setOnline(3, true);
    const online = new Uint32Array(9);
    expect(() =>
      bitmap.partition(Uint32Array.of(0, 1, 2, 3, 4, 5, 6, 7, 8), online, new Uint32Array(9), new Uint8Array(1)),
    ).toThrow(/onlineBits holds 1 bytes, needs 2/);
    expect(Array.from(online)).toEqual(new Array(9).fill(0));
  });

  it('partitions an empty list to nothing', () => {
    expect(new TypedArrayBitmap(32).partition(new Uint32Array(0), new Uint32Array(0), new Uint32Array(0))).toEqual({
      online: 0,
      offline: 0,
    });
  });

  it('reads and writes caller-supplied storage, and rejects storage that is too small', () => {
    const words = new Uint32Array(4);
    const writer = new TypedArrayBitmap(128, words);
    writer.setOnline(33, true);
    expect(words[1]).toBe(2);
    const reader = new TypedArrayBitmap(128, words);
    expect(reader.isOnline(33)).toBe(true);
    expect(() => new TypedArrayBitmap(129, words)).toThrow(RangeError);
  });
});
