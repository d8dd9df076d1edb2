import { ValidationError } from '../errors';
import {
  checkWindowWithinLifetime,
  localInstant,
  parseDeliverAt,
  parseUserTimeZone,
  zoneRelease,
  type DeliverAt,
} from './local-time';

const H = 3_600_000;
const at9 = (over: Partial<DeliverAt> = {}): DeliverAt => ({
  localTime: '09:00',
  windowMs: H,
  missed: 'next_day',
  defaultTimeZone: 'UTC',
  ...over,
});

describe('local-time delivery: releases', () => {
  it('computes the offset for the target day: Berlin before and after its DST end', () => {
    expect(localInstant('Europe/Berlin', Date.UTC(2026, 9, 24), 9 * 60)).toBe(Date.UTC(2026, 9, 24, 7));
    expect(localInstant('Europe/Berlin', Date.UTC(2026, 9, 25), 9 * 60)).toBe(Date.UTC(2026, 9, 25, 8));
    expect(localInstant('America/New_York', Date.UTC(2026, 10, 1), 9 * 60)).toBe(Date.UTC(2026, 10, 1, 14));
    expect(localInstant('America/New_York', Date.UTC(2026, 9, 31), 9 * 60)).toBe(Date.UTC(2026, 9, 31, 13));
  });

  it('shifts a local time the clocks skip later by the gap, and takes the first of one they pass twice', () => {
    // Berlin springs forward on 2026-03-29 at 02:00 to 03:00: 02:30 does not exist and means 03:30 (01:30 UTC).
    expect(localInstant('Europe/Berlin', Date.UTC(2026, 2, 29), 2 * 60 + 30)).toBe(Date.UTC(2026, 2, 29, 1, 30));
    // On 2026-10-25 02:30 happens twice (CEST, then CET): the first, 00:30 UTC.
    expect(localInstant('Europe/Berlin', Date.UTC(2026, 9, 25), 2 * 60 + 30)).toBe(Date.UTC(2026, 9, 25, 0, 30));
  });

  it('takes fixed offsets as written, without daylight saving', () => {
    expect(parseUserTimeZone('+05:30', 'tz')).toBe('+05:30');
    expect(localInstant('-03:30', Date.UTC(2026, 0, 1), 9 * 60)).toBe(Date.UTC(2026, 0, 1, 12, 30));
    expect(() => parseUserTimeZone('+14:30', 'tz')).toThrow(ValidationError);
  });

  it('sends today inside the window, and applies `missed` past it', () => {
    const expires = Date.UTC(2026, 0, 5);
    // Planned at 09:30 in UTC: inside the hour's window, released at today's 09:00, already due.
    expect(zoneRelease('UTC', at9(), Date.UTC(2026, 0, 1, 9, 30), expires)).toEqual({
      releaseAt: Date.UTC(2026, 0, 1, 9),
      offsetMinutes: 0,
      skipped: false,
    });
    const late = Date.UTC(2026, 0, 1, 10, 0);
    expect(zoneRelease('UTC', at9(), late, expires).releaseAt).toBe(Date.UTC(2026, 0, 2, 9));
    expect(zoneRelease('UTC', at9({ missed: 'now' }), late, expires).releaseAt).toBe(late);
    expect(zoneRelease('UTC', at9({ missed: 'skip' }), late, expires).skipped).toBe(true);
    // Tokyo's 09:00 on the 2nd (local date then) is still ahead at 10:00 UTC on the 1st.
    expect(zoneRelease('Asia/Tokyo', at9(), late, expires)).toMatchObject({
      releaseAt: Date.UTC(2026, 0, 2, 0),
      offsetMinutes: 540,
    });
  });

  it('never sends a zone whose release comes at or after the task expires', () => {
    const plannedAt = Date.UTC(2026, 0, 1, 10);
    expect(zoneRelease('UTC', at9(), plannedAt, Date.UTC(2026, 0, 2, 9)).skipped).toBe(true);
  });

  it('parses a request with defaults, and refuses a window the task does not outlive', () => {
    expect(parseDeliverAt({ localTime: '07:05' })).toEqual(at9({ localTime: '07:05' }));
    const deliverAt = parseDeliverAt({ localTime: '09:00', window: '1h30m', defaultTimeZone: 'europe/berlin' });
    expect(deliverAt).toEqual(at9({ windowMs: 1.5 * H, defaultTimeZone: 'Europe/Berlin' }));
    expect(() => checkWindowWithinLifetime(deliverAt, 0, H)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'deliverAt.window' }) }),
    );
    expect(() => checkWindowWithinLifetime(deliverAt, 0, 2 * H)).not.toThrow();
  });
});
