import { addBadRows, badRowTotal, classifyUin } from './audience-source';

describe('audience source rules', () => {
  it.each([
    [0, undefined],
    [15, undefined],
    [16, 'out_of_range'],
    [-1, 'negative'],
    [1.5, 'fraction'],
    [Number.NaN, 'not_a_number'],
    [null, 'null'],
    [undefined, 'null'],
    [5n, undefined],
    [-5n, 'negative'],
    [2n ** 70n, 'out_of_range'],
    ['7', undefined],
    ['18446744073709551615', 'out_of_range'],
    ['-3', 'negative'],
    ['12.0', 'fraction'],
    ['abc', 'not_a_number'],
    [true, 'not_a_number'],
  ])('classifies %p as %p under a limit of 16', (value, reason) => {
    expect(classifyUin(value, 16)).toBe(reason);
  });

  it('adds bad-row counts by reason', () => {
    const total = addBadRows(addBadRows({}, { null: 2 }), { null: 1, negative: 4, out_of_range: 0 });
    expect(total).toEqual({ null: 3, negative: 4 });
    expect(badRowTotal(total)).toBe(7);
  });
});
