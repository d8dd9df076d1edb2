import { join } from 'node:path';
import * as fc from 'fast-check';
import { mulberry32 } from '@herald/core';
import type { UserAttributes } from '@herald/core/targeting';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, readAudience, type TempDir } from '@herald/testing';
import { targetingFilter } from './targeting-filter';
import { targetingSource } from './targeting-source';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);
const REGIONS = ['cn-gd', 'cn-bj', 'eu'];
const TAGS = ['vip', 'new', 'churned'];

/** 3000 seeded users over 40 chunks, every attribute drawn from a small set (some left out). */
function users(): UserAttributes[] {
  const next = mulberry32(42);
  const pick = <T>(values: readonly T[]): T | undefined => {
    const i = next() % (values.length + 1);
    return i === values.length ? undefined : values[i];
  };
  const seen = new Set<number>();
  const out: UserAttributes[] = [];
  while (out.length < 3000) {
    const uin = next() % (40 * 65_536);
    if (seen.has(uin)) continue;
    seen.add(uin);
    const user: UserAttributes = { uin };
    const region = pick(REGIONS);
    if (region !== undefined) user.region = region;
    const gender = pick(['f', 'm', 'x'] as const);
    if (gender !== undefined) user.gender = gender;
    const band = pick(['18-24', '25-34'] as const);
    if (band !== undefined) user.ageBand = band;
    if (next() % 3 !== 0) user.activeAt = NOW - (next() % 60) * DAY;
    user.tags = TAGS.filter(() => next() % 3 === 0);
    out.push(user);
  }
  return out;
}

const term = fc.oneof(
  fc.constantFrom(...REGIONS).map((r) => `region:${r}`),
  fc.constantFrom('f', 'm', 'x').map((g) => `gender:${g}`),
  fc.constantFrom('18-24', '25-34', '65+').map((a) => `age:${a}`),
  fc.constantFrom(...TAGS, 'none').map((t) => `tag:${t}`),
  fc.integer({ min: 0, max: 70 }).map((d) => `active-since:${d}d`),
);
const query: fc.Arbitrary<string> = fc.letrec<{ q: string }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    term,
    tie('q').map((q) => `NOT (${q})`),
    fc.tuple(tie('q'), tie('q')).map(([a, b]) => `(${a}) AND (${b})`),
    fc.tuple(tie('q'), tie('q')).map(([a, b]) => `(${a}) OR (${b})`),
  ),
})).q;

describe('targetingFilter', () => {
  let dir: TempDir;
  let index: LevelAttributeIndex;
  const clock = { now: () => NOW };
  const everyone = users();

  beforeAll(async () => {
    dir = await makeTempDir('herald-targeting-filter-');
    index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
    await index.putUsers(everyone);
  });
  afterAll(async () => {
    await index.close();
    await dir.remove();
  });

  it('keeps exactly the uins of a batch that the same query lists over the whole index', async () => {
    const known = everyone.map((u) => u.uin);
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.uniqueArray(fc.oneof(fc.constantFrom(...known), fc.integer({ min: 0, max: 2 ** 32 - 1 })), {
          maxLength: 400,
        }),
        async (q, picks) => {
          const batch = Uint32Array.from(picks).sort();
          const all = new Set((await readAudience(targetingSource(index, q, { clock, batchSize: 500 }))).uins);
          const kept = await targetingFilter(index, q, { clock }).filter(batch);
          expect([...kept]).toEqual([...batch].filter((uin) => all.has(uin)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a malformed query at once and a batch that is not ascending', async () => {
    expect(() => targetingFilter(index, 'tag:')).toThrow(expect.objectContaining({ code: 'QUERY_INVALID' }));
    await expect(targetingFilter(index, 'tag:vip').filter(Uint32Array.of(5, 1))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect([...(await targetingFilter(index, 'tag:vip').filter(new Uint32Array(0)))]).toEqual([]);
  });
});
