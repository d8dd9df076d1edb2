/**
 * The targeting query language (docs/audience-sources.md, "Query language"):
 *
 *   query     = or EOF
 *   or        = and *( "OR" and )
 *   and       = unary *( "AND" unary )
 *   unary     = "NOT" unary | "(" or ")" | term
 *   term      = attribute ":" value                   ; no space inside a term
 *   attribute = "region" | "gender" | "age" | "tag" | "active-since"
 *   value     = 1*64( letter | digit | "_" | "." | "+" | "-" )   ; Unicode letters and digits
 *
 * Keywords and attribute names are case-insensitive; values are not. NOT
 * binds tightest, then AND, then OR; two terms side by side need an AND or
 * an OR between them. `active-since` takes a UTC date (`2024-05-01`) or a
 * number of days back from now (`30d`); gender f, m or x; age a band
 * (`18-24`, `65+`, ...).
 *
 * Every malformed query is a QueryError (QUERY_INVALID) whose `position` is
 * the 0-based index (UTF-16 units) where the problem starts; nothing else
 * is thrown, whatever the input (fuzz-tested). Nesting is bounded so a
 * hostile query cannot exhaust the stack.
 */
import { QueryError } from '../errors';
import { AGE_BANDS, GENDERS, isAttributeValue } from './attributes';

export const MAX_QUERY_CHARS = 4096;
export const MAX_QUERY_DEPTH = 32;
export const MAX_QUERY_TERMS = 256;
/** `active-since:<n>d` accepts 0..36500 days. */
export const MAX_ACTIVE_DAYS_BACK = 36_500;

export const QUERY_ATTRIBUTES = ['region', 'gender', 'age', 'tag', 'active-since'] as const;
export type QueryAttribute = (typeof QUERY_ATTRIBUTES)[number];

export type ActiveSince = { day: number } | { daysBack: number };

export type QueryNode =
  | { kind: 'value'; attribute: 'region' | 'gender' | 'age' | 'tag'; value: string; position: number }
  | { kind: 'active-since'; since: ActiveSince; position: number }
  | { kind: 'and' | 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode };

type TokenKind = 'word' | ':' | '(' | ')' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  start: number;
}

const WORD_CHAR = /[\p{L}\p{N}_.+-]/u;

function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the query' : `'${token.text}'`;
}

/** Splits the query into tokens; an unexpected character is a QueryError at its position. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === ':' || c === '(' || c === ')') {
      tokens.push({ kind: c, text: c, start: i });
      i++;
    } else {
      const start = i;
      // Walk by code point so a letter outside the BMP is one character.
      while (i < text.length) {
        const cp = String.fromCodePoint(text.codePointAt(i)!);
        if (!WORD_CHAR.test(cp)) break;
        i += cp.length;
      }
      if (i === start) {
        const cp = String.fromCodePoint(text.codePointAt(i)!);
        throw new QueryError(`unexpected character ${JSON.stringify(cp)}`, i, { found: cp });
      }
      tokens.push({ kind: 'word', text: text.slice(start, i), start });
    }
  }
  tokens.push({ kind: 'end', text: '', start: text.length });
  return tokens;
}

function isKeyword(token: Token, keyword: 'AND' | 'OR' | 'NOT'): boolean {
  return token.kind === 'word' && token.text.toUpperCase() === keyword;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A UTC date as its day number, or undefined when it is not a real date. */
function dateToDay(text: string): number | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (year < 1970 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  return ms / 86_400_000;
}

class Parser {
  private at = 0;
  private terms = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): QueryNode {
    const node = this.or(0);
    const next = this.peek();
    if (next.kind !== 'end') {
      const expected = ['AND', 'OR', 'end of query'];
      const why =
        next.kind === ')' ? "a ')' without its '('" : `${describe(next)}: two terms need AND or OR between them`;
      throw new QueryError(`unexpected ${why}`, next.start, { found: next.text, expected });
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private take(): Token {
    const token = this.tokens[this.at]!;
    if (token.kind !== 'end') this.at++;
    return token;
  }

  private deeper(depth: number, token: Token): number {
    if (depth >= MAX_QUERY_DEPTH)
      throw new QueryError(`nested deeper than ${MAX_QUERY_DEPTH} levels`, token.start, { found: token.text });
    return depth + 1;
  }

  private or(depth: number): QueryNode {
    const children = [this.and(depth)];
    while (isKeyword(this.peek(), 'OR')) {
      this.take();
      children.push(this.and(depth));
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  }

  private and(depth: number): QueryNode {
    const children = [this.unary(depth)];
    while (isKeyword(this.peek(), 'AND')) {
      this.take();
      children.push(this.unary(depth));
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  private unary(depth: number): QueryNode {
    const token = this.peek();
    if (isKeyword(token, 'NOT')) {
      this.take();
      return { kind: 'not', child: this.unary(this.deeper(depth, token)) };
    }
    if (token.kind === '(') {
      this.take();
      const inner = this.or(this.deeper(depth, token));
      const close = this.take();
      if (close.kind !== ')') {
        const why =
          close.kind === 'end'
            ? `the '(' at position ${token.start} is never closed`
            : `expected ')' or AND/OR, found ${describe(close)}`;
        throw new QueryError(why, close.start, { found: close.text, expected: [')', 'AND', 'OR'] });
      }
      return inner;
    }
    return this.term();
  }

  private term(): QueryNode {
    const name = this.take();
    if (name.kind !== 'word' || isKeyword(name, 'AND') || isKeyword(name, 'OR')) {
      throw new QueryError(`expected a term (attribute:value), NOT or '(', found ${describe(name)}`, name.start, {
        found: name.text,
        expected: [...QUERY_ATTRIBUTES.map((a) => `${a}:`), 'NOT', '('],
      });
    }
    const attribute = name.text.toLowerCase();
    if (!(QUERY_ATTRIBUTES as readonly string[]).includes(attribute)) {
      throw new QueryError(`unknown attribute '${name.text}' (expected ${QUERY_ATTRIBUTES.join(', ')})`, name.start, {
        found: name.text,
        expected: [...QUERY_ATTRIBUTES],
      });
    }
    // A term is one unit, `attribute:value`, with no space inside: so `region: AND tag:x` is a missing value, not the region 'AND'.
    const nameEnd = name.start + name.text.length;
    const colon = this.take();
    if (colon.kind !== ':' || colon.start !== nameEnd) {
      throw new QueryError(
        `expected ':' right after '${name.text}', found ${colon.start === nameEnd ? describe(colon) : 'a space'}`,
        nameEnd,
        { found: colon.text, expected: [':'] },
      );
    }
    const value = this.take();
    if (value.kind !== 'word' || value.start !== colon.start + 1) {
      const found = value.start === colon.start + 1 ? describe(value) : 'a space';
      throw new QueryError(`expected a value right after '${name.text}:', found ${found}`, colon.start + 1, {
        found: value.text,
        expected: ['value'],
      });
    }
    if (++this.terms > MAX_QUERY_TERMS)
      throw new QueryError(`more than ${MAX_QUERY_TERMS} terms`, name.start, { found: name.text });
    return this.termValue(attribute as QueryAttribute, value, name.start);
  }

  private termValue(attribute: QueryAttribute, value: Token, position: number): QueryNode {
    const bad = (why: string, expected: readonly string[]) =>
      new QueryError(why, value.start, { found: value.text, expected: [...expected] });
    switch (attribute) {
      case 'gender':
        if (!(GENDERS as readonly string[]).includes(value.text))
          throw bad(`gender must be one of ${GENDERS.join(', ')}, found '${value.text}'`, GENDERS);
        return { kind: 'value', attribute, value: value.text, position };
      case 'age':
        if (!(AGE_BANDS as readonly string[]).includes(value.text))
          throw bad(`age must be a band: ${AGE_BANDS.join(', ')}; found '${value.text}'`, AGE_BANDS);
        return { kind: 'value', attribute, value: value.text, position };
      case 'region':
      case 'tag':
        if (!isAttributeValue(value.text))
          throw bad(`a ${attribute} is at most 64 characters, found ${[...value.text].length}`, ['value']);
        return { kind: 'value', attribute, value: value.text, position };
      case 'active-since': {
        const back = /^(\d{1,6})d$/.exec(value.text);
        if (back !== null) {
          const daysBack = Number(back[1]);
          if (daysBack > MAX_ACTIVE_DAYS_BACK)
            throw bad(`active-since counts at most ${MAX_ACTIVE_DAYS_BACK} days back`, ['<days>d']);
          return { kind: 'active-since', since: { daysBack }, position };
        }
        const day = dateToDay(value.text);
        if (day === undefined)
          throw bad(`active-since takes a UTC date YYYY-MM-DD from 1970 on, or <days>d; found '${value.text}'`, [
            'YYYY-MM-DD',
            '<days>d',
          ]);
        return { kind: 'active-since', since: { day }, position };
      }
    }
  }
}

/**
 * Parses a targeting query into its syntax tree, or throws QueryError.
 *
 * @example
 *   parseTargetingQuery('region:cn-gd AND (gender:f OR tag:vip) AND NOT tag:churned AND active-since:30d');
 */
export function parseTargetingQuery(text: unknown): QueryNode {
  if (typeof text !== 'string') throw new QueryError('the query must be a string', 0);
  if (text.length > MAX_QUERY_CHARS)
    throw new QueryError(`the query is longer than ${MAX_QUERY_CHARS} characters`, MAX_QUERY_CHARS);
  return new Parser(tokenize(text)).parse();
}
