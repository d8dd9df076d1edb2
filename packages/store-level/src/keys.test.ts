import { key, prefixRange, readU64BE, tag } from './keys';

describe('keys', () => {
  it('writes u64 ids big-endian up to 2^53 - 1, so byte order is numeric order', () => {
    const ids = [0, 1, 255, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    const keys = ids.map((id) => key(tag('t'), { u64: id }));
    keys.forEach((k, i) => expect(readU64BE(k, 1)).toBe(ids[i]));
    const sorted = [...keys].sort(Buffer.compare);
    expect(sorted).toEqual(keys);
  });

  it('length-prefixes strings so no string key is a prefix of another', () => {
    const a = key(tag('c'), { u32: 1 }, { str: 'ab' }, { u64: 1 });
    const b = key(tag('c'), { u32: 1 }, { str: 'a' }, { u64: 1 });
    const range = prefixRange(key(tag('c'), { u32: 1 }, { str: 'a' }));
    const inRange = (k: Buffer) =>
      Buffer.compare(k, range.gte) >= 0 && (range.lt === undefined || Buffer.compare(k, range.lt) < 0);
    expect(inRange(b)).toBe(true);
    expect(inRange(a)).toBe(false);
    expect(key({ str: '\ud800' }).equals(key({ str: '\udc00' }))).toBe(false);
  });

  it('bounds a prefix, carrying over 0xff bytes', () => {
    expect(prefixRange(Buffer.of(1, 2))).toEqual({ gte: Buffer.of(1, 2), lt: Buffer.of(1, 3) });
    expect(prefixRange(Buffer.of(1, 0xff))).toEqual({ gte: Buffer.of(1, 0xff), lt: Buffer.of(2) });
    expect(prefixRange(Buffer.of(0xff))).toEqual({ gte: Buffer.of(0xff) });
  });
});
