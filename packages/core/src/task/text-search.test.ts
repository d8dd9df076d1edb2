import { isHeraldError } from '../errors';
import { compileTextSearch, matchesTextSearch, MAX_SEARCH_CHARS } from './text-search';

describe('text search (q)', () => {
  it('lower-cases the needle and reads a term of digits as an id too', () => {
    expect(compileTextSearch(undefined)).toBeUndefined();
    expect(compileTextSearch('Spring SALE')).toEqual({ needle: 'spring sale', id: undefined });
    expect(compileTextSearch('42')).toEqual({ needle: '42', id: 42 });
    // No task has id 0, and a number beyond safe integers is text only.
    expect(compileTextSearch('0')).toEqual({ needle: '0', id: undefined });
    expect(compileTextSearch('1234567890123456')).toEqual({ needle: '1234567890123456', id: undefined });
  });

  it('counts characters, not UTF-16 units, and names the field it refuses', () => {
    expect(compileTextSearch('😀'.repeat(MAX_SEARCH_CHARS))?.needle).toHaveLength(2 * MAX_SEARCH_CHARS);
    for (const bad of ['', 'x'.repeat(MAX_SEARCH_CHARS + 1), 7]) {
      let caught: unknown;
      try {
        compileTextSearch(bad, 'q');
      } catch (error) {
        caught = error;
      }
      expect(isHeraldError(caught) && caught.code === 'VALIDATION_FAILED' && caught.details.field === 'q').toBe(true);
    }
  });

  it('matches any of the texts ignoring case, or the id', () => {
    const search = compileTextSearch('sale')!;
    expect(matchesTextSearch(search, 1, ['Spring SALE', undefined])).toBe(true);
    expect(matchesTextSearch(search, 1, [undefined, 'wholesale'])).toBe(true);
    expect(matchesTextSearch(search, 1, ['news'])).toBe(false);
    expect(matchesTextSearch(compileTextSearch('7')!, 7, ['news'])).toBe(true);
    expect(matchesTextSearch(compileTextSearch('7')!, 8, ['news'])).toBe(false);
  });
});
