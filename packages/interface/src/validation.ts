import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ErrorCodes, HeraldError, ValidationError } from '@herald/core';
import type { FastifyInstance, FastifySchemaCompiler, RouteOptions } from 'fastify';

/*
 * How the API validates what it is sent, configured once for every route
 * (server.ts). Fastify's default Ajv drops unknown properties
 * (removeAdditional) and coerces types (coerceTypes: 'array'): a typo'd
 * `sendat` vanished and the task went out at once, `"enabled": 1` enabled a
 * campaign. Here:
 * - a JSON body is checked as sent: an unknown field or a wrong type is a 400
 *   naming the field, never dropped or coerced;
 * - a query string or path parameter arrives as text: a declared integer,
 *   number or boolean is read from its plain decimal or true/false spelling
 *   (so "10" is 10), anything else stays text and fails its type ("yes" is
 *   no boolean, "0x10" no integer); an undeclared parameter is refused;
 * - headers are checked where a route declares them, and others are let be
 *   (proxies and clients add their own).
 */

// allErrors stays false: collecting every error of a hostile body is a denial-of-service lever.
// validateFormats false: a `format` is for the document's readers; dates are judged by core's parseDateTime, with the calendar.
const AJV_OPTIONS = {
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: true,
  allErrors: false,
  validateFormats: false,
} as const;
const bodyAjv = new Ajv(AJV_OPTIONS);
const textAjv = new Ajv(AJV_OPTIONS);

/** Marks the schemas installStrictInput gives routes that declare none, so the OpenAPI document can leave them out. */
export const IMPLIED_SCHEMA = 'herald: implied, the route takes none';

/** The query string of a route that declares none: no parameter at all. */
const NO_QUERY = { $comment: IMPLIED_SCHEMA, type: 'object', additionalProperties: false, properties: {} } as const;
/** The body of a route that declares none: nothing, or an empty JSON object. */
const NO_BODY = {
  $comment: IMPLIED_SCHEMA,
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {},
} as const;

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

type Schema = Record<string, unknown>;

function declaredTypes(schema: unknown): string[] {
  const type = (schema as Schema | undefined)?.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

/** One query or path value read as its declared type when its text spells one exactly; else left as it came. */
function readText(value: unknown, types: readonly string[]): unknown {
  if (typeof value !== 'string') return value;
  if (types.includes('integer') && INTEGER_TEXT.test(value)) return Number(value);
  if (types.includes('number') && NUMBER_TEXT.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The query string or path parameters with declared non-string values read from their text. */
function readTextFields(schema: Schema, data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  // Without a prototype, as Fastify's query object is: `?__proto__=1` stays a key (refused as unknown) instead of being swallowed.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(data)) {
    const declared = Object.hasOwn(properties, key) ? properties[key] : undefined;
    out[key] = declared === undefined ? value : readText(value, declaredTypes(declared));
  }
  return out;
}

type Outcome = { value: unknown } | { error: ErrorObject[] | Error };

function textValidator(schema: Schema): (data: unknown) => Outcome {
  const validate = textAjv.compile(schema);
  return (data) => {
    const value = readTextFields(schema, data);
    return validate(value) ? { value } : { error: validate.errors ?? [] };
  };
}

/** A raw upload stream handed to a route that reads JSON: the wrong media type, not a wrong field. */
function isStream(data: unknown): boolean {
  return data !== null && typeof data === 'object' && typeof (data as { pipe?: unknown }).pipe === 'function';
}

function bodyValidator(schema: Schema): (data: unknown) => Outcome | boolean {
  const validate: ValidateFunction = bodyAjv.compile(schema);
  return (data) => {
    if (isStream(data))
      return {
        error: new HeraldError(
          ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
          'this route reads a JSON body: send it as application/json',
        ),
      };
    return validate(data) ? { value: data } : { error: validate.errors ?? [] };
  };
}

/** Headers: only what the route declares is checked; any other header passes. */
function headerValidator(schema: Schema): (data: unknown) => boolean {
  const validate = textAjv.compile({ ...schema, additionalProperties: true });
  const check = (data: unknown) => validate(data);
  return Object.assign(check, {
    get errors() {
      return validate.errors;
    },
  });
}

/** The validator compiler of every route (FastifyInstance.setValidatorCompiler). */
export const compileValidator: FastifySchemaCompiler<Schema> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyValidator(schema);
  if (httpPart === 'headers') return headerValidator(schema);
  return textValidator(schema);
};

/**
 * Strict input for every /api/v1 route: this validator compiler, and for a
 * route that declares no query string (or, on a method with a body, no body
 * and no raw upload), a schema that takes none, so `?evil=1` or a stray JSON
 * body is refused there too. `takesRawBody` says which routes read an upload
 * stream instead of JSON. Call before any route is registered.
 */
export function installStrictInput(app: FastifyInstance, takesRawBody: (method: string, url: string) => boolean): void {
  app.setValidatorCompiler(compileValidator);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith('/api/v1/')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema: Schema = { ...(route.schema as Schema | undefined) };
    schema.querystring ??= NO_QUERY;
    const bodied = methods.some((method) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method));
    if (bodied && schema.body === undefined && !methods.some((method) => takesRawBody(method, route.url)))
      schema.body = NO_BODY;
    route.schema = schema;
  });
}

/** A field name (or path) a JSON body may not hold anywhere: they reach prototypes in careless code downstream. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** The dotted path of the first forbidden key in `value` (iterative: a deep body must not overflow the stack). */
export function forbiddenKeyPath(value: unknown): string | undefined {
  const pending: Array<{ node: unknown; path: string }> = [{ node: value, path: '' }];
  while (pending.length > 0) {
    const { node, path } = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push({ node: item, path: `${path}[${index}]` }));
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) return at;
      pending.push({ node: child, path: at });
    }
  }
  return undefined;
}

/**
 * The JSON body parser (application/json): MALFORMED_JSON for text that is
 * not JSON (an empty body included), VALIDATION_FAILED naming the field for
 * a `__proto__` or `constructor` key. JSON.parse makes such a key a plain own
 * property, so reading it is safe; refusing it keeps it from anything that
 * later copies the body carelessly.
 */
export function parseJsonBody(
  _request: unknown,
  text: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
): void {
  let value: unknown;
  try {
    // A leading byte-order mark is not JSON, but Fastify's parser took it (some Windows clients send one).
    value = JSON.parse(text.toString().replace(/^\uFEFF/, ''));
  } catch (error) {
    const why = text.length === 0 ? 'the body is empty' : (error as Error).message;
    done(
      new HeraldError(ErrorCodes.MALFORMED_JSON, `the body is not valid JSON (Content-Type: application/json): ${why}`),
    );
    return;
  }
  const forbidden = forbiddenKeyPath(value);
  if (forbidden !== undefined)
    done(
      new ValidationError(`${forbidden} is not allowed: a body may not hold a '__proto__' or 'constructor' key`, {
        field: forbidden,
      }),
    );
  else done(null, value);
}
