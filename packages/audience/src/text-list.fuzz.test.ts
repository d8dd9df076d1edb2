/**
 * Fuzz tests (fast-check) of TextListParser, which reads uploaded text and
 * CSV recipient lists: for any bytes and any valid options it returns uins
 * and a report or throws ValidationError; the result does not depend on
 * where the chunks were cut; and uins written as lines or as a CSV column
 * read back as written.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '@herald/core';
import { TextListParser, type TextListOptions, type TextListReport } from './text-list';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

type Outcome = { ok: true; uins: number[]; report: TextListReport } | { ok: false; message: string };

/** Parses the chunks; a ValidationError becomes its message, anything else escapes and fails the property. */
function parse(chunks: Uint8Array[], options: TextListOptions): Outcome {
  try {
    const parser = new TextListParser(options);
    const uins: number[] = [];
    for (const chunk of chunks) uins.push(...parser.push(chunk));
    uins.push(...parser.end());
    return { ok: true, uins, report: parser.report };
  } catch (error) {
    if (error instanceof ValidationError) return { ok: false, message: error.message };
    throw error;
  }
}

/** Cuts bytes at the given points (modulo the length), each piece copied into its own buffer. */
function chunked(bytes: Buffer, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const edges = [0, ...points, bytes.length];
  return edges.slice(1).map((end, i) => Uint8Array.from(bytes.subarray(edges[i], end)));
}

const uinLimit = fc.constantFrom(2 ** 32, 2 ** 20, 10);
const optionsArb: fc.Arbitrary<TextListOptions> = fc.oneof(
  fc.record({
    uinLimit,
    format: fc.constant('lines' as const),
    header: fc.constantFrom('auto' as const, 'present' as const, 'absent' as const),
    maxLineBytes: fc.integer({ min: 1, max: 40 }),
    badLineSamples: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({
    uinLimit,
    format: fc.constant('csv' as const),
    column: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('uin', 'UIN', 'id')),
    header: fc.constantFrom('auto' as const, 'present' as const),
    delimiter: fc.constantFrom(',', ';', '|', '\t'),
    maxLineBytes: fc.integer({ min: 1, max: 40 }),
    badLineSamples: fc.integer({ min: 0, max: 3 }),
  }),
);

/** Fields that look like what real files hold, so the parser's branches are reached, not only "not a number". */
const field = fc.oneof(
  fc.nat({ max: 2 ** 33 }).map(String),
  fc.constantFrom(
    '',
    ' 7 ',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '+3',
    '007',
    'uin',
    'UIN',
    'id',
    '"',
    '""',
    '"4"',
    '"a,b"',
    '"x\ny"',
    '\uFEFF',
    '\r',
  ),
  fc.string({ maxLength: 6 }),
);
const textArb = fc
  .tuple(
    fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 12 }),
    fc.constantFrom(',', ';', '|', '\t'),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([records, sep, newline, bom, trailing]) => {
    const text = records.map((r) => r.join(sep)).join(newline) + (trailing ? newline : '');
    return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
  });
const bytesArb = fc.oneof(
  textArb,
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
);
const cutsArb = fc.array(fc.nat(), { maxLength: 10 });

describe('TextListParser, fuzzed', () => {
  it('throws only ValidationError on any bytes, with any options', () => {
    fc.assert(
      fc.property(bytesArb, optionsArb, cutsArb, (bytes, options, cuts) => {
        const outcome = parse(chunked(bytes, cuts), options);
        if (outcome.ok) {
          const { report, uins } = outcome;
          expect(report.valid).toBe(uins.length);
          expect(uins.every((uin) => uin < options.uinLimit)).toBe(true);
          expect(report.firstBad.length).toBe(Math.min(report.bad.total, options.badLineSamples ?? 10));
        }
      }),
      settings,
    );
  });

  it('gives the same uins and report however the input is chunked', () => {
    fc.assert(
      fc.property(bytesArb, optionsArb, cutsArb, (bytes, options, cuts) => {
        expect(parse(chunked(bytes, cuts), options)).toEqual(parse([bytes], options));
      }),
      settings,
    );
  });

  it('reads back uins written one per line', () => {
    const arb = fc.record({
      uins: fc.array(fc.nat({ max: 2 ** 32 - 1 }), { maxLength: 50 }),
      newline: fc.constantFrom('\n', '\r\n'),
      trailing: fc.boolean(),
      cuts: cutsArb,
    });
    fc.assert(
      fc.property(arb, ({ uins, newline, trailing, cuts }) => {
        const bytes = Buffer.from(uins.join(newline) + (trailing ? newline : ''));
        const outcome = parse(chunked(bytes, cuts), { uinLimit: 2 ** 32 });
        expect(outcome.ok && { uins: outcome.uins, bad: outcome.report.bad.total }).toEqual({ uins, bad: 0 });
      }),
      settings,
    );
  });

  it('reads back uins written as a named CSV column', () => {
    const other = fc.stringMatching(/^[a-z ]{0,8}$/);
    const arb = fc.record({
      rows: fc.array(fc.tuple(other, fc.nat({ max: 2 ** 32 - 1 }), other), { maxLength: 30 }),
      delimiter: fc.constantFrom(',', ';', '|', '\t'),
      cuts: cutsArb,
    });
    fc.assert(
      fc.property(arb, ({ rows, delimiter, cuts }) => {
        const lines = [
          ['name', 'uin', 'note'].join(delimiter),
          ...rows.map(([a, uin, b]) => [a, String(uin), `"${b}"`].join(delimiter)),
        ];
        const outcome = parse(chunked(Buffer.from(lines.join('\n')), cuts), {
          uinLimit: 2 ** 32,
          format: 'csv',
          column: 'uin',
          delimiter,
          maxLineBytes: 4096,
        });
        expect(
          outcome.ok && { uins: outcome.uins, bad: outcome.report.bad.total, column: outcome.report.column },
        ).toEqual({ uins: rows.map(([, uin]) => uin), bad: 0, column: 2 });
      }),
      settings,
    );
  });
});
