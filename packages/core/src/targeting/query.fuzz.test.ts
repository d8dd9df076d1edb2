/**
 * Fuzz tests (fast-check) of the targeting query parser: queries come from
 * operators through the API and the console, so for any string the parser
 * gives a tree or a QueryError whose position lies inside the query (or at
 * its end), never another error or a hang; and every accepted query
 * round-trips: printing its tree and parsing that gives the same tree.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { QueryError } from '../errors';
import { parseTargetingQuery, type QueryNode } from './query';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 500;
const settings = { numRuns: RUNS };

/** Near-valid token soup: keywords, attributes, values, punctuation, some junk. */
const token = fc.oneof(
  fc.constantFrom(
    'AND',
    'OR',
    'NOT',
    'and',
    'not',
    '(',
    ')',
    ':',
    'region',
    'gender',
    'age',
    'tag',
    'active-since',
    'regoin',
  ),
  fc.constantFrom(
    'region:cn',
    'gender:f',
    'gender:q',
    'age:18-24',
    'age:17',
    'tag:vip',
    'active-since:30d',
    'active-since:2024-02-29',
    'active-since:2023-02-29',
  ),
  fc.constantFrom(';', '"', '&', '|', '!', '\u0000', '\uD800', '😀', '游戏', '__proto__', 'constructor'),
  fc.string({ maxLength: 6 }),
);
const soup = fc.array(token, { maxLength: 30 }).chain((tokens) => fc.constantFrom(tokens.join(' '), tokens.join('')));

/** Only a QueryError with an in-range position. */
function parsesOrQueryError(query: string): boolean {
  try {
    parseTargetingQuery(query);
    return true;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    if (!(error.position >= 0 && error.position <= query.length))
      throw new Error(`position ${error.position} outside a query of ${query.length}`);
    return false;
  }
}

function print(node: QueryNode): string {
  switch (node.kind) {
    case 'value':
      return `${node.attribute}:${node.value}`;
    case 'active-since':
      return 'daysBack' in node.since
        ? `active-since:${node.since.daysBack}d`
        : `active-since:${new Date(node.since.day * 86_400_000).toISOString().slice(0, 10)}`;
    case 'not':
      return `NOT (${print(node.child)})`;
    default:
      return node.children.map((child) => `(${print(child)})`).join(` ${node.kind.toUpperCase()} `);
  }
}

/** Strips positions, which printing moves. */
function shape(node: QueryNode): unknown {
  switch (node.kind) {
    case 'value':
      return { a: node.attribute, v: node.value };
    case 'active-since':
      return { s: node.since };
    case 'not':
      return { not: shape(node.child) };
    default:
      return { [node.kind]: node.children.map(shape) };
  }
}

describe('targeting query fuzz', () => {
  it('any string parses or gives a QueryError inside the query', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (query) => void parsesOrQueryError(query)),
      settings,
    );
  });

  it('token soup parses or gives a QueryError inside the query', () => {
    fc.assert(
      fc.property(soup, (query) => void parsesOrQueryError(query)),
      settings,
    );
  });

  it('every accepted query round-trips through printing', () => {
    fc.assert(
      fc.property(soup, (query) => {
        let tree: QueryNode;
        try {
          tree = parseTargetingQuery(query);
        } catch {
          return;
        }
        expect(shape(parseTargetingQuery(print(tree)))).toStrictEqual(shape(tree));
      }),
      settings,
    );
  });
});
