/** Deterministic pseudo-random numbers (mulberry32) so a failing conformance run can be replayed exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** `count` distinct uins spread over [0, 2^32), sorted ascending. */
export function spreadUins(seed: number, count: number): Uint32Array {
  const next = seededRandom(seed);
  const seen = new Set<number>();
  while (seen.size < count) seen.add(next());
  return Uint32Array.from(seen).sort();
}
