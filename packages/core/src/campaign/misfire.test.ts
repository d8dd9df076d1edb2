import { ValidationError } from '../errors';
import { campaignTaskKey, planFirings } from './misfire';

const at = (iso: string) => Date.parse(iso);
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString().replace('.000Z', 'Z'));
const every10min = { cron: '*/10 * * * *', timeZone: 'UTC' };
const GRACE = 60_000;

/** The plan as readable ISO strings. */
function plan(
  lastScheduledAt: string | undefined,
  now: string,
  options: {
    activeFrom?: string;
    graceMs?: number;
    limit?: number;
    schedule?: { cron: string; timeZone: string };
  } = {},
) {
  const p = planFirings({
    schedule: options.schedule ?? every10min,
    lastScheduledAt: lastScheduledAt === undefined ? undefined : at(lastScheduledAt),
    activeFrom: at(options.activeFrom ?? '2025-01-01T00:00:00Z'),
    now: at(now),
    graceMs: options.graceMs ?? GRACE,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  return { fire: iso(p.fire), missed: p.missed.map(iso), advanceTo: iso(p.advanceTo), more: p.more };
}

describe('planFirings (the misfire policy, with the clock passed in)', () => {
  it('does nothing before the next scheduled time', () => {
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:09:59Z')).toEqual({
      fire: undefined,
      missed: [],
      advanceTo: undefined,
      more: false,
    });
  });

  it('fires a time that is due now, or late by less than the grace', () => {
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:10:00Z')).toEqual({
      fire: '2025-01-01T10:10:00Z',
      missed: [],
      advanceTo: '2025-01-01T10:10:00Z',
      more: false,
    });
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:10:59.999Z').fire).toBe('2025-01-01T10:10:00Z');
  });

  it('records a time late by the grace or more as missed, and fires nothing', () => {
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:11:00Z')).toEqual({
      fire: undefined,
      missed: ['2025-01-01T10:10:00Z'],
      advanceTo: '2025-01-01T10:10:00Z',
      more: false,
    });
  });

  it('after an outage fires at most the latest time, once, and records every earlier one as missed', () => {
    // Down from 10:05 to 10:30:20: 10:10 and 10:20 passed unhandled, 10:30 is 20 s late.
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:30:20Z')).toEqual({
      fire: '2025-01-01T10:30:00Z',
      missed: ['2025-01-01T10:10:00Z', '2025-01-01T10:20:00Z'],
      advanceTo: '2025-01-01T10:30:00Z',
      more: false,
    });
    // Back only at 10:31:30: the latest is beyond the grace too, so all three are missed.
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T10:31:30Z')).toEqual({
      fire: undefined,
      missed: ['2025-01-01T10:10:00Z', '2025-01-01T10:20:00Z', '2025-01-01T10:30:00Z'],
      advanceTo: '2025-01-01T10:30:00Z',
      more: false,
    });
  });

  it('never fires again what it handled: planning after advancing finds nothing due', () => {
    const first = planFirings({
      schedule: every10min,
      lastScheduledAt: at('2025-01-01T10:00:00Z'),
      activeFrom: 0,
      now: at('2025-01-01T10:10:05Z'),
      graceMs: GRACE,
    });
    expect(first.fire).toBe(at('2025-01-01T10:10:00Z'));
    const again = planFirings({
      schedule: every10min,
      lastScheduledAt: first.advanceTo,
      activeFrom: 0,
      now: at('2025-01-01T10:10:30Z'),
      graceMs: GRACE,
    });
    expect(again).toEqual({ fire: undefined, missed: [], advanceTo: undefined, more: false });
  });

  it('counts from activeFrom before the first firing, and when the schedule restarted later', () => {
    // Created at 10:05: 10:00 is not due, 10:10 is.
    expect(plan(undefined, '2025-01-01T10:09:00Z', { activeFrom: '2025-01-01T10:05:00Z' }).advanceTo).toBeUndefined();
    expect(plan(undefined, '2025-01-01T10:10:01Z', { activeFrom: '2025-01-01T10:05:00Z' }).fire).toBe(
      '2025-01-01T10:10:00Z',
    );
    // Re-enabled at 12:00 after firing last at 10:00: the times while disabled are neither fired nor missed.
    expect(plan('2025-01-01T10:00:00Z', '2025-01-01T12:10:10Z', { activeFrom: '2025-01-01T12:00:00Z' })).toEqual({
      fire: '2025-01-01T12:10:00Z',
      missed: [],
      advanceTo: '2025-01-01T12:10:00Z',
      more: false,
    });
    // A time exactly at activeFrom is not due (the schedule starts after it).
    expect(plan(undefined, '2025-01-01T12:00:30Z', { activeFrom: '2025-01-01T12:00:00Z' }).fire).toBeUndefined();
  });

  it('handles a long outage in bounded batches, oldest first, until the latest', () => {
    // A per-minute campaign, down for 250 minutes: batches of 100 misses, then the rest.
    const minutely = { cron: '* * * * *', timeZone: 'UTC' };
    let last: number | undefined = at('2025-01-01T00:00:00Z');
    const now = at('2025-01-01T04:10:10Z');
    const missed: number[] = [];
    const fired: number[] = [];
    let rounds = 0;
    for (;;) {
      const p = planFirings({
        schedule: minutely,
        lastScheduledAt: last,
        activeFrom: 0,
        now,
        graceMs: GRACE,
        limit: 100,
      });
      if (p.advanceTo === undefined) break;
      rounds++;
      missed.push(...p.missed);
      if (p.fire !== undefined) fired.push(p.fire);
      expect(p.more).toBe(rounds < 3);
      last = p.advanceTo;
    }
    expect(rounds).toBe(3);
    expect(fired.map(iso)).toEqual(['2025-01-01T04:10:00Z']);
    expect(missed).toHaveLength(249);
    expect(iso(missed[0])).toBe('2025-01-01T00:01:00Z');
    expect(iso(missed[248])).toBe('2025-01-01T04:09:00Z');
  });

  it('decides in the campaign time zone (a DST gap time fires shifted, once)', () => {
    const berlin = { cron: '30 2 * * *', timeZone: 'Europe/Berlin' };
    expect(plan('2025-03-29T01:30:00Z', '2025-03-30T01:30:10Z', { schedule: berlin }).fire).toBe(
      '2025-03-30T01:30:00Z',
    );
  });

  it('refuses a bad now, grace or limit', () => {
    const base = { schedule: every10min, lastScheduledAt: undefined, activeFrom: 0, now: 1, graceMs: 1 };
    expect(() => planFirings({ ...base, now: Number.NaN })).toThrow(ValidationError);
    expect(() => planFirings({ ...base, graceMs: -1 })).toThrow(ValidationError);
    expect(() => planFirings({ ...base, limit: 0 })).toThrow(ValidationError);
    expect(() => planFirings({ ...base, schedule: { cron: 'nope', timeZone: 'UTC' } })).toThrow(ValidationError);
  });
});

describe('campaignTaskKey', () => {
  it('names the campaign and the scheduled time', () => {
    expect(campaignTaskKey(7, 1_735_725_600_000)).toBe('campaign:7:1735725600000');
  });
});
