import {
  BUCKET_SPAN,
  decodeBucketPage,
  decodeBucketTable,
  encodeBucketOutcomes,
  encodeBucketTable,
  MalformedAnswer,
} from './login-wire';

describe('the compact forms of login buckets on the wire', () => {
  it('gives back the bucket table it was given', () => {
    const wire = encodeBucketTable([
      { bucket: 3, counts: { delivered: 1, expired: 2, over_frequency: 3 }, writes: 7 },
      { bucket: 65_535, counts: { delivered: 65_536, expired: 0, over_frequency: 0 }, writes: 2 ** 40 },
    ]);
    const table = decodeBucketTable(JSON.parse(JSON.stringify(wire)));
    expect([...table.buckets]).toEqual([3, 65_535]);
    expect([...table.counts]).toEqual([1, 2, 3, 65_536, 0, 0]);
    expect([...table.writes]).toEqual([7, 2 ** 40]);
  });

  it("gives back a page's outcomes, and refuses one outside the buckets it says it holds", () => {
    const outcomes = [
      { uin: 2 * BUCKET_SPAN, outcome: 'expired' as const, at: 1.5 },
      { uin: 3 * BUCKET_SPAN + 9, outcome: 'over_frequency' as const, at: 2 },
    ];
    const page = decodeBucketPage({ ...encodeBucketOutcomes(outcomes), buckets: 2 }, 2, 5);
    expect(page.buckets).toBe(2);
    expect([...page.outcomes.uins]).toEqual([2 * BUCKET_SPAN, 3 * BUCKET_SPAN + 9]);
    expect([...page.outcomes.codes]).toEqual([1, 2]);
    expect([...page.outcomes.at]).toEqual([1.5, 2]);
    expect(() => decodeBucketPage({ ...encodeBucketOutcomes(outcomes), buckets: 1 }, 2, 5)).toThrow(MalformedAnswer);
    expect(() => decodeBucketPage({ ...encodeBucketOutcomes(outcomes), buckets: 6 }, 2, 5)).toThrow(/buckets/);
  });

  it('refuses a table cut short, out of order, or with an unknown outcome code', () => {
    const wire = encodeBucketTable([
      { bucket: 1, counts: { delivered: 1, expired: 0, over_frequency: 0 }, writes: 1 },
      { bucket: 2, counts: { delivered: 1, expired: 0, over_frequency: 0 }, writes: 1 },
    ]);
    expect(() => decodeBucketTable({ ...wire, buckets: 3 })).toThrow(/table: 72 bytes expected/);
    const swapped = Buffer.from(wire.table, 'base64');
    swapped.writeUInt32LE(2, 0);
    swapped.writeUInt32LE(1, 4);
    expect(() => decodeBucketTable({ ...wire, table: swapped.toString('base64') })).toThrow(/out of order/);
    const one = encodeBucketOutcomes([{ uin: 1, outcome: 'delivered', at: 1 }]);
    const bad = Buffer.from(one.columns, 'base64');
    bad.writeUInt8(3, 12);
    expect(() => decodeBucketPage({ ...one, columns: bad.toString('base64'), buckets: 1 }, 0, 1)).toThrow(/code/);
  });
});
