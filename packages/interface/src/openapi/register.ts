import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorCodes } from '@herald/core';
import { COMPONENTS, ref, type JsonSchema } from './components';
import { OPERATIONS, TAGS, operationKey, type OperationDoc } from './operations';
import { IMPLIED_SCHEMA } from '../validation';

/** Where the API reference is served: the UI here, the document at `${DOCS_PATH}/json` (and `/yaml`). */
export const DOCS_PATH = '/api/docs';

const UNAUTHENTICATED_401 =
  "UNAUTHENTICATED: no token, or a malformed, unknown or revoked one (with WWW-Authenticate: Bearer); SESSION_ENDED: the console session cookie's token is no longer valid (the cookie is cleared)";

/** What a change authenticated by the console's session cookie may be refused with (docs/security.md, "Console sessions"). */
const CONSOLE_HEADER_403 =
  'CONSOLE_HEADER_REQUIRED: a change authenticated by the session cookie without the header X-Herald-Console: 1';

/** The error answers every route may give, besides its own (OperationDoc.errors). */
const COMMON_ERRORS: Record<Exclude<OperationDoc['access'], 'public'>, Record<number, string>> & {
  public: Record<number, string>;
} = {
  public: { 500: 'INTERNAL', 503: 'UNAVAILABLE: a store is unreachable; retry later' },
  token: {
    401: UNAUTHENTICATED_401,
    429: "RATE_LIMITED: over the token's auth.rateLimit (Retry-After in seconds, details.retryAfterMs)",
    500: 'INTERNAL',
    503: 'UNAVAILABLE: a store is unreachable; retry later',
  },
  admin: {
    401: UNAUTHENTICATED_401,
    403: 'FORBIDDEN: an operator token (this endpoint is for admins)',
    429: "RATE_LIMITED: over the token's auth.rateLimit (Retry-After in seconds, details.retryAfterMs)",
    500: 'INTERNAL',
    503: 'UNAVAILABLE: a store is unreachable; retry later',
  },
};

/** What any request may be answered before a route reads it: Node's and Fastify's refusals, in the same Error body. */
const TRANSPORT_ERRORS: Record<number, string> = {
  408: 'REQUEST_TIMEOUT: the request did not arrive whole in time',
  431: "HEADERS_TOO_LARGE: the request's headers are over the server's limit",
};

/** What a route of a method with a body may answer about the body itself. */
const BODY_ERRORS: Record<number, string> = {
  413: "BODY_TOO_LARGE: the body is over the route's limit (1 MiB for JSON; 16 MiB for the audiences feeds)",
  415: 'UNSUPPORTED_MEDIA_TYPE: a body of a Content-Type the route does not read (JSON routes: application/json)',
};

const STRICT_400 =
  'VALIDATION_FAILED: an unknown query parameter or field, or a value of the wrong type, is refused, never ignored or converted (details.field names it)';
const READABLE_400 = 'MALFORMED_REQUEST: not readable HTTP';
const JSON_400 =
  "MALFORMED_JSON: a body that is not JSON; VALIDATION_FAILED for a '__proto__' or 'constructor' key (details.field)";

/** The 400 answer of a route: its own causes, then what strict input adds to every route's. */
function badRequest(own: string | undefined, bodied: boolean): string {
  return [
    own ?? STRICT_400,
    ...(own === undefined ? [] : [STRICT_400]),
    ...(bodied ? [JSON_400] : []),
    READABLE_400,
  ].join('; ');
}

/** Methods whose requests may carry a body. */
const BODIED = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The API reference: the OpenAPI 3.0 document of every /api/v1 route at
 * GET /api/docs/json, and Swagger UI at GET /api/docs (its assets ship in the
 * npm package, so it works offline). Both are public (access/public-routes.ts).
 *
 * @fastify/swagger learns routes as they are registered, so this goes before
 * the routes (server.ts registers them in a plugin after it). The document
 * joins each route's own validation schemas (params, querystring, body) with
 * its entry in OPERATIONS (summary, tag, answers); routes outside /api/v1
 * (the console, /metrics, the docs themselves) are left out.
 *
 * Answers are described here, not in the routes' `response` schemas, on
 * purpose: Fastify serializes with a route's response schema, dropping
 * undeclared fields and failing on missing required ones, so a slip in the
 * description would change the answers. openapi.test.ts checks real answers
 * against this document instead.
 */
export function registerOpenApi(app: FastifyInstance): void {
  void app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Herald API',
        version: '1',
        description:
          'Mass broadcast: upload a recipient list, create a task, follow it stage by stage. Every error answers `{ "error": { "code", "message", "details"? } }` with a stable code (docs/api.md). Listings page by keyset: pass `nextCursor` back as `cursor`.',
      },
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        schemas: COMPONENTS,
        securitySchemes: {
          apiToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API token, `hrd_<id>_<secret>` (docs/api.md, "Authentication").',
          },
        },
      },
      security: [{ apiToken: [] }],
    },
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
      if (!url.startsWith('/api/v1/')) return { schema: { ...schema, hide: true }, url };
      const doc = OPERATIONS[operationKey(method, url)];
      // An undocumented route still appears, untagged and without answers: openapi.test.ts fails on it.
      return {
        schema:
          doc === undefined ? { ...schema } : documented(schema as JsonSchema | undefined, doc, BODIED.has(method)),
        url,
      };
    },
  });
  void app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
}

/** The route's own schema joined with its OPERATIONS entry, in the form @fastify/swagger reads. */
function documented(
  schema: JsonSchema | undefined,
  doc: OperationDoc,
  bodied: boolean,
): JsonSchema & { hide?: boolean } {
  const out: JsonSchema = { ...schema, tags: [doc.tag], summary: doc.summary, description: describe(doc) };
  // "Takes no query string / no body" (validation.ts) is no parameter and no request body to a reader.
  for (const part of ['querystring', 'body'])
    if ((out[part] as JsonSchema | undefined)?.$comment === IMPLIED_SCHEMA) delete out[part];
  if (doc.access === 'public') out.security = [];
  if (doc.params !== undefined && schema?.params === undefined)
    out.params = { type: 'object', required: Object.keys(doc.params), properties: doc.params };
  if (doc.headers !== undefined) out.headers = { type: 'object', properties: doc.headers };
  if (doc.rawBody !== undefined) {
    const binary = { type: 'string', format: 'binary', description: doc.rawBody.description };
    out.body = { content: Object.fromEntries(doc.rawBody.contentTypes.map((type) => [type, { schema: binary }])) };
  }
  const response: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(doc.responses)) {
    response[status] =
      answer.schema === null
        ? { type: 'null', description: answer.description }
        : { description: answer.description, ...answer.schema };
  }
  const errors: Record<number, string> = {
    ...COMMON_ERRORS[doc.access],
    ...TRANSPORT_ERRORS,
    ...(bodied ? BODY_ERRORS : {}),
    ...doc.errors,
    400: badRequest(doc.errors?.[400], bodied),
  };
  if (bodied && doc.access !== 'public') errors[403] = [errors[403], CONSOLE_HEADER_403].filter(Boolean).join('; ');
  for (const [status, when] of Object.entries(errors))
    // allOf: a $ref's siblings are dropped, and the example must stay beside it.
    response[status] = { description: when, allOf: [ref('Error')], examples: [errorExample(when)] };
  out.response = response;
  return out;
}

const CODES = Object.values(ErrorCodes) as string[];

/**
 * The example of an error answer: the first code its description names, with
 * that code's explanation as the message. Without one Swagger UI makes up an
 * example from the schema, the code enum's first value (CONFIG_INVALID) under
 * every status, a code no API answer carries.
 */
function errorExample(when: string): { error: { code: string; message: string } } {
  let first: { code: string; at: number } | undefined;
  for (const code of CODES) {
    const at = when.search(new RegExp(`\\b${code}\\b`));
    if (at >= 0 && (first === undefined || at < first.at)) first = { code, at };
  }
  if (first === undefined) throw new Error(`an error answer names no error code: ${when}`);
  const rest = when.slice(first.at + first.code.length);
  const message = rest.startsWith(': ')
    ? rest.slice(2).split(';')[0]!.trim()
    : first.code.toLowerCase().replace(/_/g, ' ');
  return { error: { code: first.code, message } };
}

function describe(doc: OperationDoc): string {
  const who =
    doc.access === 'public'
      ? 'Public: no token needed.'
      : doc.access === 'admin'
        ? 'Admin tokens only.'
        : "Any valid token; an operator's only on its accounts.";
  return doc.description === undefined ? who : `${doc.description}\n\n${who}`;
}
