import { murmur3 } from './murmur3';

/**
 * A consistent-hash ring with virtual nodes. Each member owns `vnodes` points;
 * a key belongs to the member of the first point at or after the key's hash.
 * Adding or removing one of n members moves about 1/n of the keys, and only
 * keys that move to or from that member.
 */
export class HashRing {
  private readonly points: Uint32Array;
  private readonly owners: string[];
  readonly members: readonly string[];

  constructor(
    members: readonly string[],
    readonly vnodes = 160,
  ) {
    if (!Number.isInteger(vnodes) || vnodes < 1)
      throw new RangeError(`vnodes must be a positive integer, got ${vnodes}`);
    this.members = [...new Set(members)].sort();
    const entries: { point: number; owner: string }[] = [];
    for (const member of this.members) {
      for (let i = 0; i < vnodes; i++) entries.push({ point: murmur3(`${member}#${i}`), owner: member });
    }
    // Ties broken by name so every process builds the identical ring.
    entries.sort((a, b) => a.point - b.point || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
    this.points = Uint32Array.from(entries, (e) => e.point);
    this.owners = entries.map((e) => e.owner);
  }

  get size(): number {
    return this.members.length;
  }

  /** The owning member of a key, or undefined on an empty ring. */
  ownerOf(key: string | number): string | undefined {
    if (this.points.length === 0) return undefined;
    const hash = murmur3(String(key));
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.points.length ? 0 : lo];
  }

  /**
   * Each member's share of the hash space (0..1, summing to 1): the arcs
   * ending at its points. What fraction of tasks it can expect to own.
   */
  shares(): Map<string, number> {
    const shares = new Map<string, number>(this.members.map((m) => [m, 0]));
    const n = this.points.length;
    for (let i = 0; i < n; i++) {
      // The arc (previous point, this point] belongs to this point's owner; the first point's arc wraps around.
      const arc = i === 0 ? this.points[0]! + (2 ** 32 - this.points[n - 1]!) : this.points[i]! - this.points[i - 1]!;
      shares.set(this.owners[i]!, shares.get(this.owners[i]!)! + arc / 2 ** 32);
    }
    return shares;
  }
}
