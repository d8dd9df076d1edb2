/** MurmurHash3 x86 32-bit of a UTF-8 string: fast, well spread, stable across processes. */
export function murmur3(text: string, seed = 0): number {
  const bytes = Buffer.from(text, 'utf8');
  let h = seed >>> 0;
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const blocks = bytes.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    let k = bytes.readUInt32LE(i * 4);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const tail = blocks * 4;
  const rest = bytes.length & 3;
  if (rest === 3) k ^= bytes[tail + 2]! << 16;
  if (rest >= 2) k ^= bytes[tail + 1]! << 8;
  if (rest >= 1) {
    k ^= bytes[tail]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= bytes.length;
  return fmix32(h);
}

/** murmur3's 32-bit finaliser: every input bit moves every output bit, a bijection on u32. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
