import { ErrorCodes, isHeraldError } from '@herald/core';
import { compileValidator, forbiddenKeyPath, parseJsonBody } from './validation';

/** What parseJsonBody hands Fastify: the body, or the error. */
function parsed(text: string): { body?: unknown; code?: string; field?: unknown } {
  let out: { body?: unknown; code?: string; field?: unknown } = {};
  parseJsonBody(undefined, text, (error, body) => {
    out =
      error === null
        ? { body }
        : {
            code: isHeraldError(error) ? error.code : 'not a HeraldError',
            field: isHeraldError(error) ? error.details.field : undefined,
          };
  });
  return out;
}

describe('parseJsonBody', () => {
  it('parses JSON (a byte-order mark too)', () => {
    expect(parsed('{"a":[1,{"b":null}]}')).toEqual({ body: { a: [1, { b: null }] } });
    expect(parsed('\uFEFF{"a":1}')).toEqual({ body: { a: 1 } });
  });

  it('answers text that is not JSON, or none, with MALFORMED_JSON', () => {
    expect(parsed('{"a":')).toMatchObject({ code: ErrorCodes.MALFORMED_JSON });
    expect(parsed('')).toMatchObject({ code: ErrorCodes.MALFORMED_JSON });
  });

  it('refuses a __proto__ or constructor key anywhere, naming where', () => {
    expect(parsed('{"__proto__":{"x":1}}')).toEqual({ code: ErrorCodes.VALIDATION_FAILED, field: '__proto__' });
    expect(parsed('{"users":[{"uin":1},{"tags":[],"constructor":{}}]}')).toEqual({
      code: ErrorCodes.VALIDATION_FAILED,
      field: 'users[1].constructor',
    });
    expect(parsed('{"prototype":1,"proto":2}')).toEqual({ body: { prototype: 1, proto: 2 } });
  });

  it('walks a deep body without overflowing the stack', () => {
    const depth = 100_000;
    expect(forbiddenKeyPath(JSON.parse('['.repeat(depth) + ']'.repeat(depth)))).toBeUndefined();
  });
});

describe('compileValidator', () => {
  const query = {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer' },
      ratio: { type: 'number' },
      on: { type: 'boolean' },
      name: { type: 'string' },
    },
  };
  const check = (data: unknown, httpPart: string, schema: Record<string, unknown> = query) =>
    (compileValidator({ schema, httpPart, method: 'GET', url: '/' }) as (d: unknown) => unknown)(data);

  it('reads a query text as its declared type only from its plain spelling', () => {
    expect(check({ limit: '10', ratio: '0.5', on: 'false', name: '10' }, 'querystring')).toEqual({
      value: { limit: 10, ratio: 0.5, on: false, name: '10' },
    });
    for (const bad of [
      { limit: '1e3' },
      { limit: '0x10' },
      { limit: ' 1' },
      { limit: '' },
      { on: 'yes' },
      { on: '1' },
      { limit: ['1', '2'] },
    ]) {
      expect(check(bad, 'querystring')).toMatchObject({ error: [expect.objectContaining({ keyword: 'type' })] });
    }
  });

  it('refuses an unknown query parameter, and coerces nothing in a body', () => {
    expect(check({ x: '1' }, 'querystring')).toMatchObject({
      error: [expect.objectContaining({ keyword: 'additionalProperties', params: { additionalProperty: 'x' } })],
    });
    const proto = Object.assign(Object.create(null) as Record<string, unknown>, { limit: '1' });
    Object.defineProperty(proto, '__proto__', { value: '1', enumerable: true });
    expect(check(proto, 'querystring')).toMatchObject({
      error: [expect.objectContaining({ params: { additionalProperty: '__proto__' } })],
    });
    expect(check({ limit: '10' }, 'body')).toMatchObject({
      error: [expect.objectContaining({ keyword: 'type', instancePath: '/limit' })],
    });
    expect(check({ limit: 10, x: 1 }, 'body')).toMatchObject({
      error: [expect.objectContaining({ keyword: 'additionalProperties' })],
    });
  });

  it('checks the headers a route declares and lets the others be', () => {
    const headers = { type: 'object', properties: { 'idempotency-key': { type: 'string', maxLength: 3 } } };
    expect(check({ 'idempotency-key': 'abc', 'x-other': 'y' }, 'headers', headers)).toBe(true);
    expect(check({ 'idempotency-key': 'abcd' }, 'headers', headers)).toBe(false);
  });
});
