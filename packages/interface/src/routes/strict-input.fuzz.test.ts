/**
 * Strict input, as a property of every route the OpenAPI document describes
 * (GET /api/docs/json): from each route's body schema and query parameters
 * this derives requests that are valid but for one fault, and asserts the
 * answer is 400 VALIDATION_FAILED with details.field naming the faulty field,
 * and that no store changed (tasks, campaigns, tokens, account settings,
 * audience jobs, followers, user attributes, the scheduler channel). Faults:
 * - an unknown field (in the body, in each nested object, and in the query
 *   string of every route, including those that declare none);
 * - a wrong type (a JSON value of another type; for an integer, number or
 *   boolean query parameter, text that does not spell one);
 * - an impossible date, for every field of format date-time (e.g. 30 February);
 * - an out-of-range value: a number past its minimum or maximum, a string
 *   past its maxLength.
 * A new route or field is covered as soon as the document has it.
 *
 * Runs per fault: HERALD_FUZZ_RUNS / 20 (at least 2); docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { LIST_BYTES, startFullTestServer, type Answer, type FullTestServer } from '../access/test-server.test-util';

const RUNS_PER_FAULT = Math.max(2, Math.floor((Number(process.env.HERALD_FUZZ_RUNS) || 100) / 20));

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  nullable?: boolean;
};
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

/** One request that is valid but for one fault, and the field the answer must name. */
interface Fault {
  route: string;
  kind: 'unknown field' | 'wrong type' | 'impossible date' | 'out of range';
  field: string;
  /** The request, built from the random value the fault takes. */
  request: fc.Arbitrary<{ method: string; path: string; body?: unknown }>;
}

const NAME = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/);

function typesOf(schema: Schema): string[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return schema.nullable === true ? [...types, 'null'] : types;
}

/** JSON values of a type other than the schema's. */
function wrongJson(schema: Schema): unknown[] {
  const types = typesOf(schema);
  const candidates: Array<[string[], unknown]> = [
    [['string'], 12345],
    [['string'], true],
    [['integer', 'number'], '10'],
    [['integer', 'number'], false],
    [['boolean'], 1],
    [['boolean'], 'true'],
    [['object'], 'x'],
    [['object'], [1]],
    [['array'], { a: 1 }],
    [['array'], 'x'],
  ];
  const wrong = candidates.filter(([kinds]) => kinds.some((kind) => types.includes(kind))).map(([, value]) => value);
  if (types.includes('integer')) wrong.push(1.5);
  // A value of another type must not be one the union takes.
  return wrong.filter((value) => !accepts(types, value));
}

function accepts(types: string[], value: unknown): boolean {
  if (value === null) return types.includes('null');
  if (Array.isArray(value)) return types.includes('array');
  if (typeof value === 'number')
    return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
  return types.includes(typeof value);
}

/** Impossible dates: the day after the last of a short month (30 February, 31 April), in the RFC 3339 form otherwise right. */
const pad = (n: number) => String(n).padStart(2, '0');
const IMPOSSIBLE_DATE = fc
  .record({
    year: fc.integer({ min: 2027, max: 2099 }),
    month: fc.constantFrom(2, 4, 6, 9, 11),
    extra: fc.integer({ min: 1, max: 3 }),
  })
  .map(
    ({ year, month, extra }) => `${year}-${pad(month)}-${pad(Math.min(31, monthDays(year, month) + extra))}T10:00:00Z`,
  );

function monthDays(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Values past the schema's bounds (numbers past minimum or maximum, strings past maxLength), as JSON. */
function outOfRange(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const arbitraries: Array<fc.Arbitrary<unknown>> = [];
  const integer = typesOf(schema).includes('integer');
  const step = integer ? fc.integer({ min: 1, max: 1000 }) : fc.double({ min: 0.001, max: 1000, noNaN: true });
  if (typeof schema.maximum === 'number') arbitraries.push(step.map((d) => (schema.maximum as number) + d));
  if (typeof schema.minimum === 'number') arbitraries.push(step.map((d) => (schema.minimum as number) - d));
  if (typeof schema.maxLength === 'number')
    arbitraries.push(fc.integer({ min: 1, max: 20 }).map((d) => 'a'.repeat((schema.maxLength as number) + d)));
  return arbitraries.length === 0 ? undefined : fc.oneof(...arbitraries);
}

/** The path of an object with `value` set at `at` (parents made valid along the way). */
function withValue(
  base: Record<string, unknown>,
  schema: Schema,
  at: string[],
  value: unknown,
  valid: (s: Schema, name?: string) => unknown,
): Record<string, unknown> {
  const root = structuredClone(base);
  let node = root;
  let nodeSchema = schema;
  for (const key of at.slice(0, -1)) {
    const childSchema = nodeSchema.properties![key]!;
    if (node[key] === undefined) node[key] = valid(childSchema, key);
    node = node[key] as Record<string, unknown>;
    nodeSchema = childSchema;
  }
  node[at[at.length - 1]!] = value;
  return root;
}

/** Every property path under `schema`, through nested objects (not arrays), with its schema. */
function propertyPaths(schema: Schema, prefix: string[] = []): Array<{ at: string[]; schema: Schema }> {
  return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => {
    const at = [...prefix, key];
    return [
      { at, schema: child },
      ...(typesOf(child).includes('object') && child.properties !== undefined ? propertyPaths(child, at) : []),
    ];
  });
}

describe('strict input on every documented route (property)', () => {
  let tokens: TestAccess;
  let server: FullTestServer;
  let doc: { paths: Record<string, Record<string, Operation>> };
  let listId: string;

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startFullTestServer(tokens.access);
    doc = (await server.call(undefined, { method: 'GET', path: '/api/docs/json' })).body as unknown as typeof doc;
    listId = (
      await server.call(tokens.adminToken, { method: 'POST', path: '/api/v1/lists?accountId=acct', body: LIST_BYTES })
    ).body.id as string;
  });

  afterAll(async () => {
    await server.close();
    await tokens.close();
  });

  /** A valid value of `schema`: the least it takes (required fields only), names the test knows filled in. */
  function valid(schema: Schema, name?: string): unknown {
    if (name === 'accountId') return 'acct';
    if (name === 'listId') return listId;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    if (schema.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
    const type = typesOf(schema).find((t) => t !== 'null');
    switch (type) {
      case 'string':
        if (typeof schema.pattern === 'string')
          return fc.sample(
            fc
              .stringMatching(new RegExp(schema.pattern))
              .filter((s) => s.length >= ((schema.minLength as number) ?? 0) && /^[\x21-\x7e]+$/.test(s)),
            { numRuns: 1, seed: 1 },
          )[0];
        return 'a'.repeat(Math.max(1, (schema.minLength as number) ?? 0));
      case 'integer':
      case 'number':
        return typeof schema.minimum === 'number' ? schema.minimum : 0;
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: (schema.minItems as number) ?? 0 }, () => valid(schema.items ?? {}));
      case 'object': {
        const properties = schema.properties ?? {};
        const keys = [...(schema.required ?? [])];
        for (const key of Object.keys(properties))
          if (keys.length < ((schema.minProperties as number) ?? 0) && !keys.includes(key)) keys.push(key);
        return Object.fromEntries(keys.map((key) => [key, valid(properties[key] ?? {}, key)]));
      }
      default:
        return {};
    }
  }

  /** Every fault of every route, from the document. */
  function faults(): Fault[] {
    const out: Fault[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [lower, op] of Object.entries(operations)) {
        const method = lower.toUpperCase();
        const route = `${method} ${template}`;
        const params = op.parameters ?? [];
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
          encodeURIComponent(String(valid(params.find((p) => p.in === 'path' && p.name === name)?.schema ?? {}, name))),
        );
        const query = params.filter((p) => p.in === 'query');
        const baseQuery: Record<string, string> = Object.fromEntries(
          query.filter((p) => p.required).map((p) => [p.name, String(valid(p.schema, p.name))]),
        );
        const url = (q: Record<string, string>) =>
          Object.keys(q).length === 0 ? path : `${path}?${new URLSearchParams(q).toString()}`;
        const bodySchema = op.requestBody?.content['application/json']?.schema;
        const baseBody = bodySchema === undefined ? undefined : (valid(bodySchema) as Record<string, unknown>);
        const send = (q: Record<string, string>, body = baseBody) => ({
          method,
          path: url(q),
          ...(body === undefined ? {} : { body }),
        });
        const queryFault = (kind: Fault['kind'], name: string, text: fc.Arbitrary<string>) =>
          out.push({ route, kind, field: name, request: text.map((value) => send({ ...baseQuery, [name]: value })) });

        // Every route, with or without declared query parameters.
        const names = new Set(query.map((p) => p.name));
        out.push({
          route,
          kind: 'unknown field',
          field: '<random>',
          request: NAME.filter((n) => !names.has(n)).map((n) => ({ ...send({ ...baseQuery, [n]: '1' }), field: n })),
        });
        for (const { name, schema } of query) {
          const types = typesOf(schema);
          if (types.some((t) => ['integer', 'number', 'boolean'].includes(t)))
            queryFault('wrong type', name, fc.constantFrom('yes', 'x1', '1e3', '0x10', 'NaN', ''));
          if (schema.format === 'date-time') queryFault('impossible date', name, IMPOSSIBLE_DATE);
          const range = outOfRange(schema);
          if (range !== undefined) queryFault('out of range', name, range.map(String));
        }

        if (bodySchema === undefined || baseBody === undefined) continue;
        const bodyFault = (kind: Fault['kind'], at: string[], value: fc.Arbitrary<unknown>) =>
          out.push({
            route,
            kind,
            field: at.join('.'),
            request: value.map((v) => send(baseQuery, withValue(baseBody, bodySchema, at, v, valid))),
          });
        const objects = [
          { at: [] as string[], schema: bodySchema },
          ...propertyPaths(bodySchema).filter(
            (p) => typesOf(p.schema).includes('object') && p.schema.properties !== undefined,
          ),
        ];
        for (const { at, schema } of objects) {
          const known = new Set(Object.keys(schema.properties ?? {}));
          out.push({
            route,
            kind: 'unknown field',
            field: '<random>',
            request: NAME.filter((n) => !known.has(n)).map((n) => ({
              ...send(baseQuery, withValue(baseBody, bodySchema, [...at, n], 1, valid)),
              field: [...at, n].join('.'),
            })),
          });
        }
        for (const { at, schema } of propertyPaths(bodySchema)) {
          const wrong = wrongJson(schema);
          if (wrong.length > 0) bodyFault('wrong type', at, fc.constantFrom(...wrong));
          if (schema.format === 'date-time') bodyFault('impossible date', at, IMPOSSIBLE_DATE);
          const range = outOfRange(schema);
          if (range !== undefined) bodyFault('out of range', at, range);
        }
      }
    }
    return out;
  }

  /** What a client or an operator can see of every store the API writes. */
  async function snapshot(): Promise<unknown> {
    return {
      tasks: (await server.store.listTasks({})).tasks,
      campaigns: (await server.campaigns.listCampaigns({})).campaigns,
      tokens: await tokens.access.listTokens(),
      settings: await server.accounts.getSettings('acct'),
      jobs: (await server.call(tokens.adminToken, { method: 'GET', path: '/api/v1/audiences' })).body,
      followers: Array.from(await server.followers.filterFollowers('acct', Uint32Array.from([0, 1, 2, 3]))),
      users: [await server.attributes.getUser(0), await server.attributes.getUser(1)],
      sent: server.sent.length,
    };
  }

  it('derives every kind of fault from the document, dates included', () => {
    const all = faults();
    const kinds = (kind: Fault['kind']) =>
      new Set(all.filter((f) => f.kind === kind).map((f) => `${f.route} ${f.field}`));
    expect(kinds('impossible date')).toEqual(
      new Set([
        'POST /api/v1/tasks sendAt',
        'POST /api/v1/tasks displayAt',
        'GET /api/v1/tasks createdFrom',
        'GET /api/v1/tasks createdBefore',
        'GET /api/v1/campaigns/preview after',
        'GET /api/v1/recipients/{uin}/history from',
        'GET /api/v1/recipients/{uin}/history to',
        'GET /api/v1/audit from',
        'GET /api/v1/audit to',
      ]),
    );
    expect(kinds('wrong type')).toContain('PATCH /api/v1/campaigns/{id} enabled');
    expect(kinds('wrong type')).toContain('POST /api/v1/tasks content.title');
    expect(kinds('out of range')).toContain('PUT /api/v1/accounts/{accountId}/limits dailyBroadcasts');
    // Every route gets an unknown query parameter; every route with a body an unknown field in it.
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(all.filter((f) => f.kind === 'unknown field').map((f) => f.route))).toEqual(new Set(routes));
  });

  it('answers each fault with 400 VALIDATION_FAILED naming the field, and changes no store', async () => {
    const before = await snapshot();
    for (const fault of faults()) {
      await fc.assert(
        fc.asyncProperty(fault.request, async (req) => {
          const field = (req as { field?: string }).field ?? fault.field;
          const answer: Answer = await server.call(tokens.adminToken, req);
          expect({
            route: fault.route,
            kind: fault.kind,
            req,
            status: answer.status,
            code: answer.body.error?.code,
            field: answer.body.error?.details?.field,
          }).toEqual({
            route: fault.route,
            kind: fault.kind,
            req,
            status: 400,
            code: 'VALIDATION_FAILED',
            field,
          });
          expect(await snapshot()).toEqual(before);
        }),
        { numRuns: RUNS_PER_FAULT },
      );
    }
  });
});
