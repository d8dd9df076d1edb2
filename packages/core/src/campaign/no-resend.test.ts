import { ValidationError } from '../errors';
import { checkNoResend, noResendSince, parseNoResendWindow } from './no-resend';
import { firingValues } from './firing-values';
import { firingNote } from './firing-note';
import { emptyReport } from '../task/model';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.details.field;
    throw error;
  }
  return undefined;
}

describe('checkNoResend', () => {
  it('accepts the three scopes and copies them', () => {
    expect(checkNoResend({ scope: 'content' })).toEqual({ scope: 'content' });
    expect(checkNoResend({ scope: 'firing' })).toEqual({ scope: 'firing' });
    expect(checkNoResend({ scope: 'window', window: '7d' })).toEqual({ scope: 'window', window: '7d' });
    expect(checkNoResend({ scope: 'window', window: '90m' })).toEqual({ scope: 'window', window: '90m' });
  });

  it('names the field at fault: unknown scope, bad or misplaced window, unknown fields, not an object', () => {
    expect(fieldOf(() => checkNoResend({ scope: 'daily' }))).toBe('template.noResend.scope');
    expect(fieldOf(() => checkNoResend({}))).toBe('template.noResend.scope');
    expect(fieldOf(() => checkNoResend({ scope: 'window' }))).toBe('template.noResend.window');
    expect(fieldOf(() => checkNoResend({ scope: 'window', window: '7 days' }))).toBe('template.noResend.window');
    expect(fieldOf(() => checkNoResend({ scope: 'window', window: 7 }))).toBe('template.noResend.window');
    expect(fieldOf(() => checkNoResend({ scope: 'firing', window: '7d' }))).toBe('template.noResend.window');
    expect(fieldOf(() => checkNoResend({ scope: 'content', every: '1d' }))).toBe('template.noResend.every');
    expect(fieldOf(() => checkNoResend('content'))).toBe('template.noResend');
    expect(fieldOf(() => checkNoResend(null))).toBe('template.noResend');
    expect(fieldOf(() => checkNoResend([]))).toBe('template.noResend');
  });
});

describe('parseNoResendWindow', () => {
  it('reads minutes, hours and days up to a year and a day', () => {
    expect(parseNoResendWindow('1m')).toEqual({ amount: 1, unit: 'm' });
    expect(parseNoResendWindow('12h')).toEqual({ amount: 12, unit: 'h' });
    expect(parseNoResendWindow('366d')).toEqual({ amount: 366, unit: 'd' });
    expect(parseNoResendWindow('8784h')).toEqual({ amount: 8784, unit: 'h' });
  });

  it('refuses anything else, naming the field', () => {
    for (const bad of [
      '',
      '0d',
      '07d',
      '-1d',
      '1.5d',
      '1w',
      '7D',
      ' 7d',
      '367d',
      '8785h',
      '527041m',
      '1d12h',
      '9999999d',
    ]) {
      expect(fieldOf(() => parseNoResendWindow(bad))).toBe('template.noResend.window');
    }
  });
});

describe('noResendSince', () => {
  const at = Date.UTC(2025, 2, 31, 7, 0); // Monday 31 March 2025, 09:00 in Berlin (CEST)

  it('is unbounded for scope content and a template without a scope, the firing itself for scope firing', () => {
    expect(noResendSince(undefined, at, 'Europe/Berlin')).toBeUndefined();
    expect(noResendSince({ scope: 'content' }, at, 'Europe/Berlin')).toBeUndefined();
    expect(noResendSince({ scope: 'firing' }, at, 'Europe/Berlin')).toBe(at);
  });

  it('goes back minutes and hours as elapsed time', () => {
    expect(noResendSince({ scope: 'window', window: '90m' }, at, 'Europe/Berlin')).toBe(at - 90 * 60_000);
    expect(noResendSince({ scope: 'window', window: '48h' }, at, 'Europe/Berlin')).toBe(at - 48 * HOUR);
  });

  it("goes back days on the campaign's wall clock, across a DST change", () => {
    // A week before 09:00 CEST on 31 March is 09:00 CET on 24 March: 7 days less an hour of elapsed time.
    expect(noResendSince({ scope: 'window', window: '7d' }, at, 'Europe/Berlin')).toBe(Date.UTC(2025, 2, 24, 8, 0));
    expect(noResendSince({ scope: 'window', window: '7d' }, at, 'UTC')).toBe(at - 7 * DAY);
  });

  it('never goes before the epoch', () => {
    expect(noResendSince({ scope: 'window', window: '366d' }, DAY, 'UTC')).toBe(0);
  });
});

describe('firingValues', () => {
  it("gives the scheduled time's date and time on the campaign's wall clock and a unique id", () => {
    expect(firingValues(7, Date.UTC(2025, 2, 31, 7, 0), 'Europe/Berlin')).toEqual({
      'firing.date': '2025-03-31',
      'firing.time': '09:00',
      'firing.id': `7-${Date.UTC(2025, 2, 31, 7, 0)}`,
    });
    expect(firingValues(7, Date.UTC(2025, 2, 31, 23, 30), 'Asia/Tokyo')['firing.date']).toBe('2025-04-01');
  });
});

describe('firingNote', () => {
  const task = (kept: number, removed: Record<string, number>, filteredListId: string | null = 'f_1') => ({
    filteredListId,
    report: { ...emptyReport(10), kept, removed },
  });

  it('says in words that a firing reached nobody because everyone had the content', () => {
    const note = firingNote(task(0, { duplicate: 1, already_sent: 9 }), undefined);
    expect(note?.code).toBe('reached_nobody_already_sent');
    expect(note?.message).toMatch(/^Reached nobody: all 9 recipients already got this content\. .*'content'/);
    expect(firingNote(task(0, { already_sent: 1 }), { scope: 'window', window: '7d' })?.message).toMatch(
      /its 1 recipient .* window of 7d/,
    );
  });

  it('is null when someone was kept, nothing was filtered yet, or another filter emptied the firing', () => {
    expect(firingNote(task(3, { already_sent: 7 }), undefined)).toBeNull();
    expect(firingNote(task(0, { already_sent: 7 }, null), undefined)).toBeNull();
    expect(firingNote(task(0, { already_sent: 4, targeting: 6 }), undefined)).toBeNull();
    expect(firingNote(task(0, { blacklisted: 10 }), undefined)).toBeNull();
    expect(firingNote(undefined, undefined)).toBeNull();
  });
});
