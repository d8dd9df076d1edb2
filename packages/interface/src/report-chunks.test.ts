import fc from 'fast-check';
import { CHUNK_BYTES, ReportChunks } from './report-chunks';
import { CSV_LINES, headText, ndjsonLines } from './report-lines';

describe('ReportChunks', () => {
  const number = fc.oneof(fc.nat({ max: 1_000 }), fc.nat(), fc.maxSafeNat());

  it('writes heads (with and without a position) as headText does and text as UTF-8, across chunk boundaries', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(CSV_LINES.head, ndjsonLines(42).head),
        fc.array(
          fc.tuple(number, fc.option(number), fc.nat({ max: 3 }), fc.string({ unit: 'grapheme', maxLength: 90 })),
          {
            maxLength: 2_000,
          },
        ),
        (parts, rows) => {
          const out = new ReportChunks(parts);
          const chunks: Buffer[] = [];
          let want = '';
          for (const [uin, position, copies, tail] of rows) {
            // A row outside the filtered list: the walk's position -1, headText's undefined.
            out.head(uin, position ?? -1, copies);
            out.text(tail);
            want += headText(parts, uin, position ?? undefined, copies) + tail;
            if (out.hasReady) chunks.push(...out.take());
          }
          chunks.push(...out.finish());
          expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
          for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeLessThanOrEqual(CHUNK_BYTES);
        },
      ),
      { numRuns: 200 },
    );
  });
});
