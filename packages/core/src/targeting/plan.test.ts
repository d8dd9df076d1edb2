import { UNIVERSE_KEY, userBitsetKeys, utcDay, type UserAttributes } from './attributes';
import { CHUNK_UINS, chunkMembers, emptyChunk, setChunkBit } from './bitset-chunk';
import { activeDaysOf, evaluatePlanChunk, planKeys, planTargetingQuery } from './plan';
import { parseTargetingQuery } from './query';

const DAY = 86_400_000;
const NOW = Date.UTC(2024, 5, 15, 12);
const users: UserAttributes[] = [
  { uin: 1, region: 'cn-gd', gender: 'f', ageBand: '18-24', activeAt: NOW - 2 * DAY, tags: ['vip'] },
  { uin: 2, region: 'cn-gd', gender: 'm', ageBand: '25-34', activeAt: NOW - 40 * DAY, tags: ['vip', 'churned'] },
  { uin: 3, region: 'cn-bj', gender: 'f', ageBand: '18-24', activeAt: NOW },
  { uin: 70_000, region: 'cn-gd', gender: 'x', tags: ['churned'] },
  { uin: 5 },
];

/** A naive reference: bitsets as Sets, the plan evaluated on them for every user of chunk `chunk`. */
function bitsets(): Map<string, Set<number>> {
  const sets = new Map<string, Set<number>>();
  for (const user of users)
    for (const key of userBitsetKeys(user)) (sets.get(key) ?? sets.set(key, new Set()).get(key)!).add(user.uin);
  return sets;
}

function run(query: string): number[] {
  const sets = bitsets();
  const plan = planTargetingQuery(parseTargetingQuery(query), { now: NOW, activeDays: activeDaysOf(sets.keys()) });
  const result: number[] = [];
  for (const chunk of [0, 1]) {
    const words = (key: string): Uint32Array | undefined => {
      const set = sets.get(key);
      if (set === undefined) return undefined;
      const w = emptyChunk();
      for (const uin of set) if (Math.floor(uin / CHUNK_UINS) === chunk) setChunkBit(w, uin, true);
      return w;
    };
    const out = new Uint32Array(CHUNK_UINS);
    const n = chunkMembers(evaluatePlanChunk(plan, words, words(UNIVERSE_KEY)!), chunk, out, 0);
    result.push(...out.subarray(0, n));
  }
  return result;
}

describe('targeting plans', () => {
  it.each([
    ['region:cn-gd', [1, 2, 70_000]],
    ['gender:f AND age:18-24', [1, 3]],
    ['tag:vip OR region:cn-bj', [1, 2, 3]],
    ['NOT tag:churned', [1, 3, 5]],
    ['region:cn-gd AND NOT tag:churned', [1]],
    ['active-since:30d', [1, 3]],
    ['active-since:0d', [3]],
    [`active-since:${new Date(NOW - 40 * DAY).toISOString().slice(0, 10)}`, [1, 2, 3]],
    ['NOT active-since:30d', [2, 5, 70_000]],
    ['region:nowhere', []],
    ['NOT region:nowhere', [1, 2, 3, 5, 70_000]],
    ['(tag:vip OR tag:churned) AND NOT (gender:m OR gender:x)', [1]],
  ])('%s', (query, expected) => {
    expect(run(query)).toEqual(expected);
  });

  it('plans active-since as the union of the day buckets the index holds from that day on', () => {
    const plan = planTargetingQuery(parseTargetingQuery('active-since:7d'), {
      now: NOW,
      activeDays: [utcDay(NOW) - 8, utcDay(NOW) - 7, utcDay(NOW)],
    });
    expect(plan).toEqual({ op: 'union', keys: [`active=${utcDay(NOW) - 7}`, `active=${utcDay(NOW)}`] });
  });

  it('lists every key a plan reads, the universe first, each once', () => {
    const plan = planTargetingQuery(parseTargetingQuery('tag:a OR (tag:a AND NOT gender:f)'), {
      now: NOW,
      activeDays: [],
    });
    expect(planKeys(plan)).toEqual(['*', 'tag=a', 'gender=f']);
  });
});
