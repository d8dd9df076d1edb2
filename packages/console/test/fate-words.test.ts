import type { OfflineThen, RecipientFate } from '@herald/core/fate';
import { FILTER_REASONS } from '@herald/core/task';
import { fateInWords, fateNotes, fateTone, MAX_UIN, uinProblem } from '../src/lib/fate-words';

/** Times in UTC, so the sentences do not depend on the machine's zone. */
const time = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const AT = Date.UTC(2026, 10, 27, 10, 2, 3);
const LATER = Date.UTC(2026, 10, 27, 18, 30, 0);
const base = { uin: 123456 };

/** What became of an offline entry: one of each outcome core has (the mapped type fails to compile when core adds one). */
const THEN: { [K in OfflineThen['outcome']]: [Extract<OfflineThen, { outcome: K }>[], string[]] } = {
  waiting: [[{ outcome: 'waiting', until: LATER }], ['waiting for the user to log in (until 18:30:00)']],
  delivered_at_login: [[{ outcome: 'delivered_at_login', at: LATER }], ['delivered at login at 18:30:00']],
  expired: [[{ outcome: 'expired', at: LATER }], ['expired at 18:30:00 before the user logged in']],
  dropped_at_login: [
    [
      { outcome: 'dropped_at_login', at: LATER, why: 'expired' },
      { outcome: 'dropped_at_login', at: LATER, why: 'over_frequency' },
    ],
    ['dropped at login at 18:30:00: it had expired', 'dropped at login at 18:30:00: over the frequency limit'],
  ],
  unknown: [[{ outcome: 'unknown', reason: 'host B unreachable' }], ['then unknown: host B unreachable']],
};

/** One or more answers of each fate core can give, and the words for each (core's type: a new kind fails to compile). */
const FATES: { [K in RecipientFate['fate']]: [Extract<RecipientFate, { fate: K }>[], string[]] } = {
  not_in_audience: [[{ ...base, fate: 'not_in_audience' }], ['Not in the audience']],
  removed: [
    FILTER_REASONS.map((link) => ({ ...base, fate: 'removed' as const, link })),
    [
      'Removed: duplicate in the list',
      'Removed: blacklisted (global or account)',
      'Removed: already sent this content',
      'Removed: not a follower',
      'Removed: over the frequency limit',
      'Removed: outside the targeting',
      'Removed: in the A/B holdout (sent nothing on purpose)',
    ],
  ],
  delivered_online: [
    [{ ...base, position: 5012, fate: 'delivered_online', at: AT, executor: 'executor-1', atLogin: false }],
    ['Delivered online at 10:02:03 by executor-1'],
  ],
  rejected: [
    [{ ...base, position: 5013, fate: 'rejected', at: AT, executor: 'executor-1', reason: 'unregistered' }],
    ['Rejected by the push channel (unregistered) at 10:02:03, sent by executor-1'],
  ],
  queued_offline: [
    Object.values(THEN).flatMap(([thens]) =>
      thens.map((then) => ({ ...base, fate: 'queued_offline' as const, at: AT, executor: 'executor-2', then })),
    ),
    Object.values(THEN).flatMap(([, words]) => words.map((w) => `Queued offline at 10:02:03 by executor-2, ${w}`)),
  ],
  not_reached: [
    [{ ...base, fate: 'not_reached', taskState: 'PAUSED', why: 'the task is paused before this position' }],
    ['Not reached yet: the task is paused before this position'],
  ],
  unknown: [
    [{ ...base, fate: 'unknown', reason: 'the task is SCHEDULED: its list is not filtered yet' }],
    ['Unknown: the task is SCHEDULED: its list is not filtered yet'],
  ],
};

describe('a fate in words', () => {
  it.each(Object.entries(FATES))('says %s in the operator’s words', (_kind, [fates, words]) => {
    expect(FILTER_REASONS).toHaveLength(FATES.removed[1].length);
    expect(fates.map((fate) => fateInWords(fate, time))).toEqual(words);
  });

  it('tells good from bad from pending, so the colour never says delivered for a maybe', () => {
    const tones = Object.values(FATES).flatMap(([fates]) => fates.map((f) => [fateInWords(f, time), fateTone(f)]));
    expect(Object.fromEntries(tones)).toMatchObject({
      'Delivered online at 10:02:03 by executor-1': 'good',
      'Rejected by the push channel (unregistered) at 10:02:03, sent by executor-1': 'bad',
      'Queued offline at 10:02:03 by executor-2, delivered at login at 18:30:00': 'good',
      'Queued offline at 10:02:03 by executor-2, waiting for the user to log in (until 18:30:00)': 'pending',
      'Queued offline at 10:02:03 by executor-2, expired at 18:30:00 before the user logged in': 'bad',
      'Removed: blacklisted (global or account)': 'bad',
      'Not in the audience': 'bad',
      'Not reached yet: the task is paused before this position': 'pending',
      'Unknown: the task is SCHEDULED: its list is not filtered yet': 'pending',
    });
  });

  it('notes the position and the duplicate copies', () => {
    expect(fateNotes({ ...base, fate: 'not_in_audience' })).toBe('');
    expect(fateNotes({ ...base, position: 5012, duplicateCopiesRemoved: 1, fate: 'not_in_audience' })).toBe(
      'position 5,012 in the filtered list; 1 duplicate copy removed',
    );
    expect(
      fateNotes({
        ...base,
        fate: 'not_reached',
        taskState: 'SENDING',
        why: 'its group waits',
        variant: 'b',
        localGroup: { releaseAt: Date.UTC(2026, 10, 27, 14), offsetMinutes: -300, skipped: false },
      }),
    ).toMatch(/^variant b; local-time group UTC−05:00, released at 2026-11-27 \d\d:00:00$/);
    expect(
      fateNotes({
        ...base,
        fate: 'not_reached',
        taskState: 'SENDING',
        why: 'skipped',
        localGroup: { releaseAt: 0, offsetMinutes: 330, skipped: true },
      }),
    ).toBe('local-time group UTC+05:30, skipped');
    expect(fateNotes({ ...base, duplicateCopiesRemoved: 3, fate: 'removed', link: 'blacklisted' })).toBe(
      '3 duplicate copies removed',
    );
  });
});

describe('a uin as typed', () => {
  it('takes a decimal uin up to 2^32 - 1, and says why anything else is not one', () => {
    for (const ok of ['0', '123456', ` ${MAX_UIN} `]) expect(uinProblem(ok)).toBeNull();
    expect(uinProblem('')).toBe('Type a uin: the user id, a whole number such as 123456.');
    expect(uinProblem('12a')).toBe('"12a" is not a uin: use digits only, such as 123456.');
    expect(uinProblem('-5')).toBe('"-5" is not a uin: use digits only, such as 123456.');
    expect(uinProblem('1.5')).toMatch(/is not a uin/);
    expect(uinProblem('007')).toBe('A uin has no leading zeros: type it as the list holds it.');
    expect(uinProblem(String(MAX_UIN + 1))).toBe('A uin is at most 4,294,967,295.');
  });
});
