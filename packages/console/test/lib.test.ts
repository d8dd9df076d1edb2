import {
  CHANNEL_HOLD_STATES as CORE_HOLD_STATES,
  FILTER_REASONS as CORE_REASONS,
  TASK_STATES as CORE_STATES,
  taskMachine,
} from '@herald/core/task';
import { CHANNEL_HOLD_STATES, FILTER_REASONS, TASK_STATES, TERMINAL_STATES, type Task } from '../src/api/types';
import { channelHoldText, deadLettersOf } from '../src/lib/channel';
import { emptyForm, formFieldOf, toCreateBody, validateBroadcast } from '../src/lib/broadcast-form';
import { campaignFieldOf, emptyCampaign, toCampaignBody, validateCampaign } from '../src/lib/campaign-form';
import { canCommand } from '../src/lib/commands';
import { fmtDuration, fmtPercent, fmtTime } from '../src/lib/format';
import { emptyChartText, eta, smoothedRatePoints } from '../src/lib/rate';
import { fieldOfSchemaMessage } from '../src/lib/schema-message';
import { taskStages } from '../src/lib/stages';

/** The console's pure parts: what it mirrors from core must agree with core; the rest is arithmetic and forms. */
describe('console contract with core', () => {
  it('knows the same task states and filter reasons', () => {
    expect([...TASK_STATES]).toEqual([...CORE_STATES]);
    expect([...FILTER_REASONS]).toEqual([...CORE_REASONS]);
    expect([...CHANNEL_HOLD_STATES]).toEqual([...CORE_HOLD_STATES]);
    for (const state of TASK_STATES)
      expect([state, TERMINAL_STATES.includes(state)]).toEqual([state, taskMachine.isTerminal(state)]);
  });

  it('enables pause, resume and cancel exactly where the task machine allows them', () => {
    for (const state of TASK_STATES) {
      for (const command of ['pause', 'resume', 'cancel'] as const)
        expect([state, command, canCommand(state, command)]).toEqual([state, command, taskMachine.can(state, command)]);
    }
  });
});

const task = (over: Partial<Omit<Task, 'report'>> & { report?: Partial<Task['report']> }): Task => ({
  id: 1,
  accountId: 'acme',
  listId: 'l',
  state: 'SENDING',
  content: { body: 'b' },
  priority: 'normal',
  sendAt: 0,
  expiresAt: 1,
  listCount: 100,
  owner: null,
  filteredListId: 'f_1',
  error: null,
  createdAt: 0,
  updatedAt: 0,
  ...over,
  report: {
    total: 100,
    kept: 80,
    removed: { duplicate: 20 },
    delivered: 30,
    offline: 10,
    units: 4,
    unitsDone: 1,
    ...over.report,
  },
});

describe('task stages', () => {
  it('measures each stage from the report', () => {
    const [pre, dispatch, delivery, offline] = taskStages(task({}));
    expect(pre).toMatchObject({ status: 'done', fraction: 1 });
    expect(dispatch).toMatchObject({ status: 'running', fraction: 0.25 });
    expect(delivery).toMatchObject({ status: 'running', fraction: 0.5 });
    expect(offline).toMatchObject({ status: 'running', fraction: 0.125 });
  });

  it('waits before pre-processing, and halts with a paused task', () => {
    // A new task's report already holds the list's count as its total (core's emptyReport).
    for (const state of ['CREATED', 'SCHEDULED', 'QUEUED'] as const) {
      const fresh = taskStages(
        task({
          state,
          filteredListId: null,
          report: { total: 100, kept: 0, removed: {}, delivered: 0, offline: 0, units: 0, unitsDone: 0 },
        }),
      );
      expect([state, fresh.map((s) => s.status)]).toEqual([state, ['waiting', 'waiting', 'waiting', 'waiting']]);
    }
    expect(
      taskStages(
        task({
          state: 'PREPROCESSING',
          filteredListId: null,
          report: { kept: 0, units: 0, unitsDone: 0, delivered: 0, offline: 0 },
        }),
      )[0],
    ).toMatchObject({ status: 'running', fraction: null });
    expect(taskStages(task({ state: 'PAUSED' })).map((s) => s.status)).toEqual(['done', 'halted', 'halted', 'halted']);
  });

  it('is done everywhere once completed, even when the filters kept nobody', () => {
    const empty = taskStages(
      task({
        state: 'COMPLETED',
        report: { total: 5, kept: 0, removed: { already_sent: 5 }, delivered: 0, offline: 0, units: 0, unitsDone: 0 },
      }),
    );
    expect(empty.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done']);
  });
});

describe('delivery rate and ETA', () => {
  it('tells the time left at a rate', () => {
    expect(eta(3000, 750)).toBe(4000);
    expect(eta(0, null)).toBe(0);
    expect(eta(10, 0)).toBeNull();
  });

  it('smooths a paced task that confirms 4,096 at a time into its pace, not swings between 0 and a peak', () => {
    // 2,048 a second on average: one batch of 4,096 every 2 s, sampled each second.
    const samples = Array.from({ length: 61 }, (_, s) => ({ at: s * 1000, confirmed: 4096 * Math.floor(s / 2) }));
    const raw = samples.slice(1).map((b, i) => b.confirmed - samples[i]!.confirmed);
    expect(Math.min(...raw)).toBe(0); // what the old chart drew: 0, 4,096, 0, 4,096…
    const smoothed = smoothedRatePoints(samples, 8_000).slice(8);
    for (const p of smoothed) expect(Math.abs(p.perSecond - 2048)).toBeLessThanOrEqual(2048 * 0.25);
  });

  it('draws a two-sample curve as a line from the first sample, and widens the window to the curve spacing', () => {
    const two = smoothedRatePoints([
      { at: 0, confirmed: 0 },
      { at: 500, confirmed: 1000 },
    ]);
    expect(two).toEqual([
      { at: 0, perSecond: 2000 },
      { at: 500, perSecond: 2000 },
    ]);
    expect(smoothedRatePoints([{ at: 0, confirmed: 0 }])).toEqual([]);
    const thinned = [0, 16, 32, 48].map((s, i) => ({ at: s * 1000, confirmed: i * 16_000 }));
    // 16 s apart: a 5 s window alone would read within one segment; twice the spacing spans two.
    expect(smoothedRatePoints(thinned, 5_000, 16_000).map((p) => p.perSecond)).toEqual([1000, 1000, 1000, 1000]);
  });

  it('says why there is no curve', () => {
    expect(emptyChartText(undefined, false)).toBe('loading…');
    expect(emptyChartText({ recorded: false }, true)).toBe('no progress was recorded for this task');
    expect(emptyChartText({ recorded: false }, false)).toBe('no progress yet');
    expect(emptyChartText({ recorded: true }, false)).toBe('collecting samples…');
  });
});

describe('new broadcast form', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it('names every field at fault', () => {
    const errors = validateBroadcast(
      { ...emptyForm('acme'), title: 'x'.repeat(257), when: 'at', sendAt: '', durationHours: '-1' },
      now,
    );
    expect(Object.keys(errors).sort()).toEqual(['body', 'durationHours', 'listId', 'sendAt', 'title']);
    expect(validateBroadcast({ ...emptyForm('Bad Account'), listId: 'l', body: 'hi' }, now)).toEqual({
      accountId: expect.any(String),
    });
    expect(validateBroadcast({ ...emptyForm('acme'), audience: 'followers', body: 'hi' }, now)).toEqual({
      listId: 'Build the audience first.',
    });
    expect(formFieldOf('source.kind')).toBe('audience');
    expect(
      validateBroadcast({ ...emptyForm('acme'), listId: 'l', body: 'hi', when: 'at', sendAt: '2020-01-01T10:00' }, now)
        .sendAt,
    ).toContain('passed');
  });

  it('checks the pre-delivery display time against the send time', () => {
    const base = { ...emptyForm('acme'), listId: 'l', body: 'hi', preDeliver: true };
    expect(validateBroadcast(base, now).displayAt).toContain('Write the time recipients should see it');
    expect(validateBroadcast({ ...base, displayAt: '2020-01-01T00:00' }, now).displayAt).toContain(
      'before the send time',
    );
    const later = new Date(now + 3600_000);
    const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    expect(validateBroadcast({ ...base, displayAt: local(later) }, now)).toEqual({});
    expect(toCreateBody({ ...base, displayAt: local(later) }).displayAt).toBe(later.toISOString());
    expect(formFieldOf('displayAt')).toBe('displayAt');
  });

  it('becomes the documented request body', () => {
    const form = {
      ...emptyForm('acme'),
      listId: 'l1',
      title: 'T',
      body: 'B',
      priority: 'realtime' as const,
      durationHours: '1.5',
    };
    expect(toCreateBody(form)).toEqual({
      accountId: 'acme',
      listId: 'l1',
      content: { title: 'T', body: 'B' },
      priority: 'realtime',
      ttlSeconds: 5400,
    });
    expect(toCreateBody({ ...form, title: ' ', durationHours: '' })).toEqual({
      accountId: 'acme',
      listId: 'l1',
      content: { body: 'B' },
      priority: 'realtime',
    });
  });

  it('marks a personalised broadcast as a template and checks its sample uin', () => {
    const form = { ...emptyForm('acme'), listId: 'l1', body: 'Hi {{region}}', personalised: true };
    expect(toCreateBody(form).content).toEqual({ body: 'Hi {{region}}', template: true });
    expect(validateBroadcast({ ...form, sampleUin: '42' }, now)).toEqual({});
    expect(validateBroadcast({ ...form, sampleUin: '-1' }, now).sampleUin).toContain('uin');
    expect(validateBroadcast({ ...form, sampleUin: '4294967296' }, now).sampleUin).toContain('uin');
    expect(validateBroadcast({ ...form, personalised: false, sampleUin: 'x' }, now)).toEqual({});
  });

  it('puts server errors on the field they name, from the field or from a schema message', () => {
    expect(formFieldOf('content.body')).toBe('body');
    expect(formFieldOf('ttlSeconds')).toBe('durationHours');
    expect(formFieldOf('unknown')).toBeUndefined();
    expect(fieldOfSchemaMessage('body/content/body must NOT have fewer than 1 characters')).toBe('content.body');
    expect(fieldOfSchemaMessage("body must have required property 'listId'")).toBe('listId');
    expect(fieldOfSchemaMessage('querystring/limit must be <= 1000')).toBe('limit');
    expect(fieldOfSchemaMessage('something else')).toBeUndefined();
  });
});

describe('new campaign form', () => {
  it('checks, builds the body, and maps server fields', () => {
    const form = emptyCampaign('acme', 'Europe/Paris');
    expect(Object.keys(validateCampaign(form)).sort()).toEqual(['body', 'listId', 'name']);
    const full = { ...form, name: ' Digest ', listId: 'l', body: 'B', durationHours: '2' };
    expect(validateCampaign(full)).toEqual({});
    expect(toCampaignBody(full)).toEqual({
      accountId: 'acme',
      name: 'Digest',
      cron: '0 9 * * 1-5',
      timeZone: 'Europe/Paris',
      enabled: true,
      template: {
        listId: 'l',
        content: { body: 'B' },
        priority: 'normal',
        ttlSeconds: 7200,
        noResend: { scope: 'content' },
      },
    });
    // The no-resend scope: a window is whole days, 1..366.
    const windowed = { ...full, noResendScope: 'window' as const, noResendWindowDays: '7' };
    expect(toCampaignBody(windowed).template.noResend).toEqual({ scope: 'window', window: '7d' });
    for (const days of ['0', '367', '1.5', ''])
      expect(validateCampaign({ ...windowed, noResendWindowDays: days })).toHaveProperty('noResendWindowDays');
    expect(toCampaignBody({ ...full, noResendScope: 'firing' }).template.noResend).toEqual({ scope: 'firing' });
    expect(campaignFieldOf('template.noResend.window')).toBe('noResendWindowDays');
    expect(campaignFieldOf('template.content.body')).toBe('body');
    expect(campaignFieldOf('timeZone')).toBe('timeZone');
  });
});

describe('formats', () => {
  it('shows times in the zone asked for, and short durations and shares', () => {
    expect(fmtTime(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Paris')).toBe('2026-03-29 03:30:00');
    expect(fmtTime(Date.parse('2026-03-29T01:30:00Z'), 'UTC')).toBe('2026-03-29 01:30:00');
    expect(fmtDuration(45_000)).toBe('45 s');
    expect(fmtDuration(192_000)).toBe('3 min 12 s');
    expect(fmtDuration(2 * 3600_000 + 5 * 60_000)).toBe('2 h 05 min');
    expect(fmtPercent(1, 3)).toBe('33.3%');
    expect(fmtPercent(9999, 10_000)).toBe('99.9%');
    expect(fmtPercent(0, 0)).toBe('–');
  });
});

describe("the delivery channel's part of a task", () => {
  it("says in words why the channel holds a task, with the channel's reason", () => {
    expect(channelHoldText({ state: 'throttled', reason: 'HTTP 429, Retry-After 2 s' })).toBe(
      'Channel throttled: sending is held and resumes by itself. HTTP 429, Retry-After 2 s',
    );
    expect(channelHoldText({ state: 'unavailable', reason: 'breaker open' })).toMatch(/^Channel unavailable: /);
  });

  it('totals dead letters, most first', () => {
    const report = task({ report: { deadLetters: { bad_device_token: 3, unregistered: 7, gone: 3 } } }).report;
    expect(deadLettersOf(report)).toEqual({
      total: 13,
      byReason: [
        ['unregistered', 7],
        ['bad_device_token', 3],
        ['gone', 3],
      ],
    });
    expect(deadLettersOf(task({}).report)).toEqual({ total: 0, byReason: [] });
  });
});
