import { FoundEntries } from './offline-found';

describe('FoundEntries', () => {
  it('gives back what a read found once, then forgets it', () => {
    const found = new FoundEntries();
    found.remember(7, found.mark(), [1, 2]);
    expect([...found.take(7)!]).toEqual([1, 2]);
    expect(found.take(7)).toBeUndefined();
    expect(found.take(8)).toBeUndefined();
  });

  it('gives nothing back once a removal began after the read, while it runs and after it ended', async () => {
    const found = new FoundEntries();
    const before = found.mark();
    let seenDuring: ReadonlySet<number> | undefined = new Set();
    await found.removing(async () => {
      found.remember(7, before, [1]);
      found.remember(8, found.mark(), [1]);
      seenDuring = found.take(8);
    });
    expect(seenDuring).toBeUndefined();
    expect(found.take(7)).toBeUndefined();
  });

  it('gives nothing back for a read that began during a removal, even after it ended', async () => {
    const found = new FoundEntries();
    let during = 0;
    await found.removing(async () => {
      during = found.mark();
    });
    found.remember(7, during, [1]);
    expect(found.take(7)).toBeUndefined();
    found.remember(7, found.mark(), [1]);
    expect([...found.take(7)!]).toEqual([1]);
  });

  it('keeps the newest users beyond its bound', () => {
    const found = new FoundEntries(2);
    for (const uin of [1, 2, 3]) found.remember(uin, found.mark(), [uin]);
    expect(found.take(1)).toBeUndefined();
    expect([...found.take(3)!]).toEqual([3]);
  });
});
