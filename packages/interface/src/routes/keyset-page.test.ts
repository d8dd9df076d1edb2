import { keysetPage } from './keyset-page';

const items = [
  { id: 'a', createdAt: 1 },
  { id: 'b', createdAt: 1 },
  { id: 'a', createdAt: 2 },
  { id: 'c', createdAt: 3 },
];

describe('keysetPage', () => {
  it('walks an ascending list page by page, ties on createdAt ordered by id', () => {
    const first = keysetPage(items, 'asc', undefined, 2);
    expect(first).toEqual({ items: items.slice(0, 2), nextCursor: '1-b' });
    expect(keysetPage(items, 'asc', '1-b', 2)).toEqual({ items: items.slice(2), nextCursor: null });
  });

  it('walks a descending list, and a cursor whose item is gone still continues after its key', () => {
    const desc = [...items].reverse();
    expect(keysetPage(desc, 'desc', undefined, 1)).toEqual({ items: [desc[0]], nextCursor: '3-c' });
    // 2-b was never there: the page starts below it.
    expect(keysetPage(desc, 'desc', '2-b', 10)).toEqual({ items: desc.slice(1), nextCursor: null });
  });

  it('keeps ids with dashes whole and refuses a cursor it never answered', () => {
    expect(
      keysetPage(
        [
          { id: 'x-1', createdAt: 5 },
          { id: 'x-2', createdAt: 5 },
        ],
        'asc',
        '5-x-1',
      ),
    ).toEqual({ items: [{ id: 'x-2', createdAt: 5 }], nextCursor: null });
    expect(() => keysetPage(items, 'asc', 'nonsense')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'cursor' } }),
    );
  });
});
