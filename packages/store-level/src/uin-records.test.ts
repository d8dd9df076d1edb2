import { decodeUins, encodeUins, splitByRange, unionSorted } from './uin-records';

describe('uin records', () => {
  it('encodes u32 little-endian and decodes back, from a subarray and from an unaligned buffer', () => {
    const backing = Uint32Array.of(9, 0, 1, 0xfffffffe, 0xffffffff, 9);
    const encoded = encodeUins(backing.subarray(1, 5));
    expect([...encoded]).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    const unaligned = Buffer.concat([Buffer.of(7), encoded]).subarray(1);
    expect([...decodeUins(unaligned)]).toEqual([0, 1, 0xfffffffe, 0xffffffff]);
    expect(decodeUins(Buffer.alloc(0))).toHaveLength(0);
  });

  it('refuses a value whose length is not a multiple of 4', () => {
    expect(() => decodeUins(Buffer.alloc(6))).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('unions sorted sets without duplicates', () => {
    expect([...unionSorted(Uint32Array.of(1, 3, 5), Uint32Array.of(2, 3, 6))]).toEqual([1, 2, 3, 5, 6]);
    expect([...unionSorted(Uint32Array.of(), Uint32Array.of(4))]).toEqual([4]);
    expect([...unionSorted(Uint32Array.of(4, 8), Uint32Array.of(4, 8))]).toEqual([4, 8]);
  });

  it('splits a sorted array at range boundaries, without copying', () => {
    const sorted = Uint32Array.of(0, 255, 256, 1000, 1023, 1024);
    const slices = splitByRange(sorted, (u) => u >>> 8);
    expect(slices.map((s) => [s.range, [...s.uins]])).toEqual([
      [0, [0, 255]],
      [1, [256]],
      [3, [1000, 1023]],
      [4, [1024]],
    ]);
    expect(slices[0]!.uins.buffer).toBe(sorted.buffer);
    expect(splitByRange(new Uint32Array(0), (u) => u)).toEqual([]);
  });
});
