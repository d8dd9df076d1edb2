import { dedupeFilter } from './dedupe';

const context = { taskId: 1, accountId: 'acme', contentCrc: 0 };

describe('dedupeFilter', () => {
  it('is the duplicate link', () => {
    expect(dedupeFilter.name).toBe('dedupe');
    expect(dedupeFilter.reason).toBe('duplicate');
  });

  it('keeps one of each repeated uin of a sorted list', async () => {
    const kept = await dedupeFilter.apply(Uint32Array.of(1, 1, 2, 5, 5, 5, 9, 2 ** 32 - 1, 2 ** 32 - 1), context);
    expect([...kept]).toEqual([1, 2, 5, 9, 2 ** 32 - 1]);
  });

  it('keeps a list without repeats as it is', async () => {
    expect([...(await dedupeFilter.apply(Uint32Array.of(0, 3, 4), context))]).toEqual([0, 3, 4]);
  });

  it('handles an empty list and a single uin', async () => {
    expect((await dedupeFilter.apply(new Uint32Array(0), context)).length).toBe(0);
    expect([...(await dedupeFilter.apply(Uint32Array.of(0), context))]).toEqual([0]);
  });
});
