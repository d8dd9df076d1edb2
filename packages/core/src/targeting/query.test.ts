import { QueryError } from '../errors';
import { parseTargetingQuery, MAX_QUERY_DEPTH, type QueryNode } from './query';

const day = (date: string) =>
  Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000;
const v = (attribute: 'region' | 'gender' | 'age' | 'tag', value: string, position: number): QueryNode => ({
  kind: 'value',
  attribute,
  value,
  position,
});

describe('parseTargetingQuery: accepted queries', () => {
  const cases: [string, QueryNode][] = [
    ['region:cn-gd', v('region', 'cn-gd', 0)],
    ['  gender:f  ', v('gender', 'f', 2)],
    ['age:18-24', v('age', '18-24', 0)],
    ['age:65+', v('age', '65+', 0)],
    ['tag:vip.gold_2', v('tag', 'vip.gold_2', 0)],
    ['tag:游戏', v('tag', '游戏', 0)],
    ['REGION:cn AND Tag:x', { kind: 'and', children: [v('region', 'cn', 0), v('tag', 'x', 14)] }],
    ['active-since:2024-05-01', { kind: 'active-since', since: { day: day('2024-05-01') }, position: 0 }],
    ['active-since:30d', { kind: 'active-since', since: { daysBack: 30 }, position: 0 }],
    ['active-since:0d', { kind: 'active-since', since: { daysBack: 0 }, position: 0 }],
    ['NOT tag:churned', { kind: 'not', child: v('tag', 'churned', 4) }],
    ['not not tag:a', { kind: 'not', child: { kind: 'not', child: v('tag', 'a', 8) } }],
    // NOT binds tighter than AND, AND tighter than OR.
    [
      'tag:a OR tag:b AND NOT tag:c',
      {
        kind: 'or',
        children: [
          v('tag', 'a', 0),
          { kind: 'and', children: [v('tag', 'b', 9), { kind: 'not', child: v('tag', 'c', 23) }] },
        ],
      },
    ],
    [
      '(tag:a OR tag:b) AND tag:c',
      { kind: 'and', children: [{ kind: 'or', children: [v('tag', 'a', 1), v('tag', 'b', 10)] }, v('tag', 'c', 21)] },
    ],
    ['((gender:m))', v('gender', 'm', 2)],
    ['tag:a or tag:b or tag:c', { kind: 'or', children: [v('tag', 'a', 0), v('tag', 'b', 9), v('tag', 'c', 18)] }],
    ['tag:AND', v('tag', 'AND', 0)],
    ['region:cn\nAND\tgender:x', { kind: 'and', children: [v('region', 'cn', 0), v('gender', 'x', 14)] }],
  ];
  it.each(cases)('%j', (query, tree) => {
    expect(parseTargetingQuery(query)).toStrictEqual(tree);
  });
});

describe('parseTargetingQuery: malformed queries name the position', () => {
  const cases: [string, number, RegExp][] = [
    ['', 0, /expected a term/],
    ['   ', 3, /found the end of the query/],
    ['regoin:cn', 0, /unknown attribute 'regoin'/],
    ['region', 6, /expected ':' right after 'region', found the end/],
    ['region cn', 6, /expected ':' right after 'region', found a space/],
    ['region :cn', 6, /found a space/],
    ['region:', 7, /expected a value right after 'region:', found the end/],
    ['region: AND tag:x', 7, /expected a value right after 'region:', found a space/],
    ['region:(cn)', 7, /expected a value right after 'region:', found '\('/],
    ['region:cn tag:x', 10, /two terms need AND or OR/],
    ['region:cn AND', 13, /expected a term/],
    ['AND region:cn', 0, /expected a term/],
    ['region:cn OR OR tag:x', 13, /expected a term/],
    ['(region:cn', 10, /never closed/],
    ['region:cn)', 9, /without its '\('/],
    ['()', 1, /expected a term/],
    ['gender:female', 7, /gender must be one of f, m, x/],
    ['age:20', 4, /age must be a band/],
    ['active-since:2024-02-30', 13, /UTC date/],
    ['active-since:1969-12-31', 13, /UTC date/],
    ['active-since:yesterday', 13, /UTC date/],
    ['active-since:36501d', 13, /at most 36500 days/],
    ['tag:a AND tag:b;', 15, /unexpected character ";"/],
    ['tag:"vip"', 4, /unexpected character/],
    ['region:cn & tag:x', 10, /unexpected character "&"/],
    [`tag:${'x'.repeat(65)}`, 4, /at most 64 characters/],
    ['tag:a AND NOT', 13, /expected a term/],
    ['NOT', 3, /expected a term/],
  ];
  it.each(cases)('%j -> position %i', (query, position, message) => {
    let caught: unknown;
    try {
      parseTargetingQuery(query);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QueryError);
    const error = caught as QueryError;
    expect(error.code).toBe('QUERY_INVALID');
    expect(error.position).toBe(position);
    expect(error.details.position).toBe(position);
    expect(error.message).toMatch(message);
  });

  it('refuses nesting deeper than the bound at the first parenthesis past it, without exhausting the stack', () => {
    const deep = `${'('.repeat(MAX_QUERY_DEPTH + 1)}tag:a${')'.repeat(MAX_QUERY_DEPTH + 1)}`;
    expect(() => parseTargetingQuery(deep)).toThrow(QueryError);
    try {
      parseTargetingQuery(deep);
    } catch (error) {
      expect((error as QueryError).position).toBe(MAX_QUERY_DEPTH);
    }
    expect(() => parseTargetingQuery(`${'NOT '.repeat(100_000)}tag:a`.slice(0, 4096))).toThrow(QueryError);
    const ok = `${'('.repeat(MAX_QUERY_DEPTH)}tag:a${')'.repeat(MAX_QUERY_DEPTH)}`;
    expect(parseTargetingQuery(ok)).toStrictEqual(v('tag', 'a', MAX_QUERY_DEPTH));
  });

  it('refuses a query over 4096 characters, and anything that is not a string', () => {
    expect(() => parseTargetingQuery(`tag:a${' OR tag:a'.repeat(600)}`)).toThrow(/longer than 4096/);
    for (const value of [undefined, null, 42, {}, ['tag:a']])
      expect(() => parseTargetingQuery(value)).toThrow(QueryError);
  });

  it('refuses more than 256 terms', () => {
    const query = Array.from({ length: 257 }, (_, i) => `tag:t${i}`).join(' OR ');
    expect(() => parseTargetingQuery(query)).toThrow(/more than 256 terms/);
  });
});
