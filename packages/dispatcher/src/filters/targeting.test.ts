import { join } from 'node:path';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { targetingConditionFilter } from './targeting';

const context = { taskId: 4, accountId: 'acme', contentCrc: 0 };

describe('targetingConditionFilter', () => {
  let dir: TempDir;
  let index: LevelAttributeIndex;
  beforeAll(async () => {
    dir = await makeTempDir('herald-targeting-condition-');
    index = await LevelAttributeIndex.open(join(dir.path, 'attributes'));
    // Spread over several 65,536-uin chunks: cn-gd for multiples of 1000, eu for the rest.
    await index.putUsers(
      Array.from({ length: 400 }, (_, i) => ({ uin: i * 997, region: (i * 997) % 1000 === 0 ? 'cn-gd' : 'eu' })),
    );
  });
  afterAll(async () => {
    await index.close();
    await dir.remove();
  });

  const queries: Record<number, string> = { 4: 'region:cn-gd', 5: 'NOT region:cn-gd', 6: 'tag:' };
  const filter = targetingConditionFilter({
    get index() {
      return index;
    },
    queryOf: async ({ taskId }) => queries[taskId],
  });

  it('is the targeting link, run only for tasks that carry a query', async () => {
    expect(filter).toMatchObject({ name: 'targeting', reason: 'targeting' });
    expect(await filter.runsFor!(context)).toBe(true);
    expect(await filter.runsFor!({ ...context, taskId: 99 })).toBe(false);
  });

  it("keeps exactly the recipients whose attributes match the task's query", async () => {
    const uins = Uint32Array.from({ length: 400 }, (_, i) => i * 997).sort();
    // Users not in the index at all (one below every user) match nothing, not even a NOT.
    const withStrangers = Uint32Array.from([...uins, ...[...uins].filter((u) => u > 0).map((u) => u - 1)]).sort();
    const kept = [...(await filter.apply(withStrangers.slice(), context))];
    expect(kept).toEqual([...uins].filter((u) => u % 1000 === 0));
    const others = [...(await filter.apply(withStrangers.slice(), { ...context, taskId: 5 }))];
    expect(others).toEqual([...uins].filter((u) => u % 1000 !== 0));
  });

  it('fails the task on a malformed query', async () => {
    await expect(filter.apply(Uint32Array.of(1), { ...context, taskId: 6 })).rejects.toMatchObject({
      code: 'QUERY_INVALID',
    });
  });
});
