import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { parseQuietHours, quietHoursEnd } from './quiet-hours';

const NIGHT = { from: '22:00', to: '08:00' };

describe('quiet hours', () => {
  it('holds a push inside them to their end in the zone, across midnight and DST', () => {
    // 23:30 in Berlin on 24 October (CEST): held to 08:00 on the 25th, which is CET (+01:00): 07:00 UTC.
    expect(quietHoursEnd('Europe/Berlin', NIGHT, Date.UTC(2026, 9, 24, 21, 30))).toBe(Date.UTC(2026, 9, 25, 7));
    // 03:00 local, after midnight: the same day's 08:00.
    expect(quietHoursEnd('Asia/Tokyo', NIGHT, Date.UTC(2026, 0, 1, 18))).toBe(Date.UTC(2026, 0, 1, 23));
    // Outside them: at once.
    expect(quietHoursEnd('Asia/Tokyo', NIGHT, Date.UTC(2026, 0, 1, 3))).toBe(Date.UTC(2026, 0, 1, 3));
    // A span that does not wrap, and a fixed offset.
    expect(quietHoursEnd('+05:30', { from: '12:00', to: '14:00' }, Date.UTC(2026, 0, 1, 7))).toBe(
      Date.UTC(2026, 0, 1, 8, 30),
    );
  });

  it('refuses quiet hours covering the whole day, and malformed ones, naming the field', () => {
    for (const raw of ['08:00-08:00', '22:00', '22:00-24:00', '2200-0800', 7, null])
      expect(() => parseQuietHours(raw)).toThrow(
        expect.objectContaining({ details: expect.objectContaining({ field: 'quietHours' }) }),
      );
    expect(parseQuietHours('22:00-08:00')).toEqual(NIGHT);
  });

  it('fuzz: answers quiet hours or a ValidationError naming the field, and what it answers ends inside a day', () => {
    const hhmm = fc
      .tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const raw = fc.oneof(
      fc.tuple(hhmm, hhmm).map(([a, b]) => `${a}-${b}`),
      fc.string({ maxLength: 12 }),
      fc.anything(),
    );
    fc.assert(
      fc.property(raw, fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), (value, at) => {
        let quiet;
        try {
          quiet = parseQuietHours(value);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          // The object form names its inner field (quietHours.hours, quietHours.during, quietHours.<name>).
          expect(String((error as ValidationError).details.field)).toMatch(/^quietHours(\.|$)/);
          return;
        }
        const end = quietHoursEnd('Europe/Berlin', quiet, at);
        expect(end).toBeGreaterThanOrEqual(at);
        expect(end - at).toBeLessThanOrEqual(25 * 3_600_000);
      }),
      { numRuns: Number(process.env.HERALD_FUZZ_RUNS) || 300 },
    );
  });
});
