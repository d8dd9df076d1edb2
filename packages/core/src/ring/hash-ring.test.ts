import { HashRing } from './hash-ring';
import { murmur3 } from './murmur3';

const KEYS = 100_000;
const keys = Array.from({ length: KEYS }, (_, i) => `task-${i}`);

function owners(ring: HashRing): (string | undefined)[] {
  return keys.map((k) => ring.ownerOf(k));
}

describe('HashRing', () => {
  it('returns undefined on an empty ring', () => {
    const ring = new HashRing([]);
    expect(ring.size).toBe(0);
    expect(ring.ownerOf('anything')).toBeUndefined();
    expect(ring.ownerOf(42)).toBeUndefined();
  });

  it('gives every key to the only member of a one-member ring', () => {
    const ring = new HashRing(['solo']);
    expect(new Set(keys.slice(0, 1000).map((k) => ring.ownerOf(k)))).toEqual(new Set(['solo']));
  });

  it('gives a key the same owner in two independently built rings, whatever the member order', () => {
    const a = new HashRing(['s1', 's2', 's3', 's4', 's5']);
    const b = new HashRing(['s5', 's3', 's1', 's4', 's2', 's3']);
    expect(b.members).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(b.size).toBe(5);
    const fromA = owners(a);
    const fromB = owners(b);
    expect(fromA.filter((owner, i) => owner !== fromB[i]).length).toBe(0);
    expect(new Set(fromA).size).toBe(5);
  });

  it('gives a key to the member of the first point at or after its hash, wrapping past the last point', () => {
    const members = ['a', 'b', 'c'];
    const vnodes = 4;
    const points = members
      .flatMap((member) => Array.from({ length: vnodes }, (_, i) => ({ point: murmur3(`${member}#${i}`), member })))
      .sort((x, y) => x.point - y.point);
    const naiveOwner = (key: string) => (points.find((p) => p.point >= murmur3(key)) ?? points[0]!).member;
    const ring = new HashRing(members, vnodes);
    const sample = keys.slice(0, 5000);
    const mismatches = sample.filter((key) => ring.ownerOf(key) !== naiveOwner(key));
    expect(mismatches).toEqual([]);
    // The sample covers the wrap-around: some keys hash above the last point.
    expect(sample.some((key) => murmur3(key) > points[points.length - 1]!.point)).toBe(true);
  });

  it('treats a numeric key like its decimal string', () => {
    const ring = new HashRing(['a', 'b', 'c']);
    const byNumber = Array.from({ length: 1000 }, (_, i) => ring.ownerOf(i));
    const byString = Array.from({ length: 1000 }, (_, i) => ring.ownerOf(String(i)));
    expect(byNumber).toEqual(byString);
  });

  it('spreads 100k keys roughly evenly over 5 members with 160 vnodes', () => {
    const members = ['scheduler-1', 'scheduler-2', 'scheduler-3', 'scheduler-4', 'scheduler-5'];
    const ring = new HashRing(members, 160);
    const counts = new Map<string, number>();
    for (const owner of owners(ring)) counts.set(owner!, (counts.get(owner!) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(members);
    for (const member of members) {
      const share = counts.get(member)! / KEYS;
      expect(share).toBeGreaterThan(0.12);
      expect(share).toBeLessThan(0.28);
    }
  });

  it('moves about 1/5 of the keys when a 5th member joins 4, all of them to the new member', () => {
    const before = owners(new HashRing(['m1', 'm2', 'm3', 'm4']));
    const after = owners(new HashRing(['m1', 'm2', 'm3', 'm4', 'm5']));
    const movedTo = new Set<string | undefined>();
    let moved = 0;
    for (let i = 0; i < KEYS; i++) {
      if (before[i] === after[i]) continue;
      moved++;
      movedTo.add(after[i]);
    }
    expect([...movedTo]).toEqual(['m5']);
    expect(moved / KEYS).toBeGreaterThan(0.12);
    expect(moved / KEYS).toBeLessThan(0.28);
  });

  it('moves only the keys of a member that leaves', () => {
    const before = owners(new HashRing(['m1', 'm2', 'm3', 'm4', 'm5']));
    const after = owners(new HashRing(['m1', 'm2', 'm4', 'm5']));
    let moved = 0;
    const movedTo = new Set<string | undefined>();
    const wronglyMoved: number[] = [];
    for (let i = 0; i < KEYS; i++) {
      if (before[i] === 'm3') {
        moved++;
        movedTo.add(after[i]);
      } else if (after[i] !== before[i]) {
        wronglyMoved.push(i);
      }
    }
    expect(wronglyMoved).toEqual([]);
    expect(moved).toBeGreaterThan(0);
    expect([...movedTo].sort()).toEqual(['m1', 'm2', 'm4', 'm5']);
  });

  it('gives each member the share of the hash space its keys fall in', () => {
    expect(new HashRing([]).shares().size).toBe(0);
    expect(new HashRing(['only']).shares()).toEqual(new Map([['only', 1]]));
    const ring = new HashRing(['a', 'b', 'c', 'd']);
    const shares = ring.shares();
    expect([...shares.values()].reduce((x, y) => x + y, 0)).toBeCloseTo(1, 9);
    const counts = new Map<string, number>();
    const keys = 200_000;
    for (let k = 0; k < keys; k++) counts.set(ring.ownerOf(k)!, (counts.get(ring.ownerOf(k)!) ?? 0) + 1);
    // The share predicts the fraction of keys each member owns (keys hash uniformly).
    for (const [member, share] of shares) expect(Math.abs(counts.get(member)! / keys - share)).toBeLessThan(0.01);
  });

  it('rejects a vnode count that is not a positive integer', () => {
    expect(() => new HashRing(['a'], 0)).toThrow(RangeError);
    expect(() => new HashRing(['a'], -1)).toThrow(RangeError);
    expect(() => new HashRing(['a'], 1.5)).toThrow(RangeError);
    expect(new HashRing(['a'], 1).ownerOf('x')).toBe('a');
  });
});
