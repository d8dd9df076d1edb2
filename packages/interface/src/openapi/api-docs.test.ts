/**
 * docs/api.md's table of statuses and codes against what the server can
 * answer, so the two cannot drift: every error status of every route in the
 * OpenAPI document has a row; every code the document names under a status,
 * every code the server maps to a status (http-errors.ts) and every code of
 * the answers before any route (client-errors.ts) is in that status's row;
 * and every code of core's ErrorCodes is either in the table or listed here
 * as one no API answer carries, with why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, type ErrorCode } from '@herald/core';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startFullTestServer, type FullTestServer } from '../access/test-server.test-util';
import { CLIENT_ERRORS, UNREADABLE } from '../client-errors';
import { STATUS_OF_CODE } from '../http-errors';

const API_MD = join(__dirname, '..', '..', '..', '..', 'docs', 'api.md');

/**
 * Codes of core that no API answer carries: each is raised where no HTTP
 * request is being answered (and should one escape a handler, the server
 * answers 500 INTERNAL, never the code: http-errors.ts).
 */
const NOT_ANSWERED: Partial<Record<ErrorCode, string>> = {
  CONFIG_INVALID: 'a process refuses to start',
  FRAME_MALFORMED: 'ZeroMQ frames between tiers',
  FRAME_UNKNOWN_KIND: 'ZeroMQ frames between tiers',
  FRAME_UNSUPPORTED_VERSION: 'ZeroMQ frames between tiers',
  STORE_CLOSED: 'a store used after close, at shutdown',
  MIGRATION_FAILED: 'herald migrate',
  DELIVERY_REJECTED: "the push channel, in the executors; a task's error when the channel refused a batch whole",
  DELIVERY_THROTTLED: 'the push channel, in the executors (its pacing waits, docs/delivery.md)',
  CANARY_FAILED: "a task's error when its canary paused it (docs/rollouts.md), never an answer's",
};

/** The rows of the status table under "Every error answers": status to the row's text. */
function statusTable(markdown: string): Map<number, string> {
  const start = markdown.indexOf('| status | codes |');
  expect(start).toBeGreaterThan(-1);
  const rows = new Map<number, string>();
  for (const line of markdown.slice(start).split('\n').slice(2)) {
    const match = /^\| (\d{3}) \| (.*) \|$/.exec(line);
    if (match === null) break;
    rows.set(Number(match[1]), match[2]!);
  }
  return rows;
}

/** The codes of ErrorCodes a text names. */
function codesIn(text: string): ErrorCode[] {
  return (Object.keys(ErrorCodes) as ErrorCode[]).filter((code) => new RegExp(`\\b${code}\\b`).test(text));
}

describe('docs/api.md lists every status and code the API answers', () => {
  let tokens: TestAccess;
  let server: FullTestServer;
  let doc: {
    paths: Record<
      string,
      Record<
        string,
        {
          responses: Record<
            string,
            { description?: string; content?: Record<string, { example?: { error?: { code?: string } } }> }
          >;
        }
      >
    >;
  };
  const table = statusTable(readFileSync(API_MD, 'utf8'));

  beforeAll(async () => {
    tokens = await openTestAccess();
    server = await startFullTestServer(tokens.access);
    doc = (await server.call(undefined, { method: 'GET', path: '/api/docs/json' })).body as unknown as typeof doc;
  });

  afterAll(async () => {
    await server.close();
    await tokens.close();
  });

  /** `code` as the table's row for `status` must name it, in backticks. */
  const missing = (status: number, code: string) => !(table.get(status) ?? '').includes(`\`${code}\``);

  it('has a row for every error status of every route in the OpenAPI document, naming the codes the document gives there', () => {
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          if (!table.has(Number(status))) problems.push(`${where}: no row for ${status}`);
          for (const code of codesIn(answer.description ?? ''))
            if (missing(Number(status), code)) problems.push(`${where}: ${code} not in the ${status} row`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('shows under each error status an example with a code that status really carries (issue 22, defect 10)', () => {
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const code = answer.content?.['application/json']?.example?.error?.code;
          const carried = STATUS_OF_CODE[code as ErrorCode];
          if (code === undefined) problems.push(`${where}: no example`);
          else if (!codesIn(answer.description ?? '').includes(code as ErrorCode))
            problems.push(`${where}: example ${code} is not one of the codes it names`);
          else if (carried !== undefined && carried !== Number(status))
            problems.push(`${where}: example ${code} is answered with ${carried}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("names each code in its status's row as the server maps it, the answers before any route included", () => {
    const mapped: Array<[number, string]> = [
      ...Object.entries(STATUS_OF_CODE).map(([code, status]) => [status!, code] as [number, string]),
      ...Object.values(CLIENT_ERRORS).map((answer) => [answer.status, answer.code] as [number, string]),
      [UNREADABLE.status, UNREADABLE.code],
      [500, ErrorCodes.INTERNAL],
    ];
    expect(
      mapped.filter(([status, code]) => missing(status, code)).map(([status, code]) => `${code} (${status})`),
    ).toEqual([]);
  });

  it('documents every core code an answer can carry; the others are listed here with why', () => {
    const inTable = new Set(codesIn([...table.values()].join(' ')));
    const unaccounted = Object.values(ErrorCodes).filter(
      (code) => !inTable.has(code) && NOT_ANSWERED[code] === undefined,
    );
    expect(unaccounted).toEqual([]);
    // A code listed as never answered must not be mapped to a status either.
    expect(
      Object.keys(NOT_ANSWERED).filter(
        (code) => STATUS_OF_CODE[code as ErrorCode] !== undefined || inTable.has(code as ErrorCode),
      ),
    ).toEqual([]);
  });

  it('has no row for a status nothing answers', () => {
    const answered = new Set<number>([
      ...Object.values(STATUS_OF_CODE),
      ...Object.values(CLIENT_ERRORS).map((a) => a.status),
      UNREADABLE.status,
      500,
    ]);
    for (const operations of Object.values(doc.paths))
      for (const op of Object.values(operations))
        for (const status of Object.keys(op.responses)) answered.add(Number(status));
    expect([...table.keys()].filter((status) => !answered.has(status))).toEqual([]);
  });
});
