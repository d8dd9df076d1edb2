import { mulberry32 } from '@herald/core';

/** `count` distinct uins spread over [0, 2^32), sorted ascending. */
export function spreadUins(seed: number, count: number): Uint32Array {
  const next = mulberry32(seed);
  const seen = new Set<number>();
  while (seen.size < count) seen.add(next());
  return Uint32Array.from(seen).sort();
}
