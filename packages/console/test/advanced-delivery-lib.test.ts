import { emptyForm, formFieldOf, toCreateBody, validateBroadcast, type BroadcastForm } from '../src/lib/broadcast-form';
import { isTimeZone, localTimeFormOf, validateLocalTime, windowText } from '../src/lib/local-time-form';
import { emptyRollout, rolloutFieldOf, rolloutFormOf, validateRollout } from '../src/lib/rollout-form';

/**
 * The new-broadcast form's advanced delivery without a browser: the checks
 * mirror the server's (core time/local-time.ts, time/quiet-hours.ts,
 * rollout/parse.ts), the request fields, and where a refusal's field lands.
 */
const base = (): BroadcastForm => ({ ...emptyForm('acme'), listId: 'l_1', body: 'Hello' });

describe('advanced delivery form', () => {
  it('adds nothing to the request while every setting is off', () => {
    expect(toCreateBody(base())).toEqual({
      accountId: 'acme',
      listId: 'l_1',
      content: { body: 'Hello' },
      priority: 'normal',
    });
    expect(validateBroadcast(base(), 0)).toEqual({});
  });

  it('sends local time, quiet hours, a collapse key, a canary and variants as the API takes them', () => {
    const form = base();
    form.local = { ...form.local, localTimeOn: true, localTime: '09:30', window: '2h', missed: 'skip' };
    form.local = {
      ...form.local,
      defaultTimeZone: 'Europe/Berlin',
      quietOn: true,
      quietFrom: '22:00',
      quietTo: '07:00',
    };
    form.rollout = { ...form.rollout, collapseKey: 'match:12', variantsOn: true };
    form.rollout.variants = [
      { name: 'a', share: '33.3', title: '', body: 'A' },
      { name: 'b', share: '56.7', title: 'Bee', body: 'B' },
    ];
    form.personalised = true;
    expect(validateBroadcast(form, 0)).toEqual({});
    expect(toCreateBody(form)).toMatchObject({
      deliverAt: { localTime: '09:30', window: '2h', missed: 'skip', defaultTimeZone: 'Europe/Berlin' },
      quietHours: '22:00-07:00',
      collapseKey: 'match:12',
      variants: [
        { name: 'a', share: 0.333, content: { body: 'A', template: true } },
        { name: 'b', share: 0.567, content: { title: 'Bee', body: 'B', template: true } },
      ],
      holdout: 0.1,
    });
    const canary = {
      ...base(),
      rollout: { ...emptyRollout(), canaryOn: true, canaryBy: 'count' as const, canarySample: '10000' },
    };
    expect(toCreateBody(canary).canary).toEqual({
      sample: 10000,
      holdSeconds: 600,
      thresholds: { rejectedRatio: 0.05, failedRatio: 0.05 },
    });
  });

  it('refuses what the server refuses, on the field', () => {
    const local = { ...localTimeFormOf(undefined, undefined), localTimeOn: true, quietOn: true };
    expect(validateLocalTime({ ...local, localTime: '24:00' }).localTime).toMatch(/HH:MM/);
    expect(validateLocalTime({ ...local, window: '13h' }).window).toBe('From 1 minute to 12 hours.');
    expect(validateLocalTime({ ...local, window: '2h' }, 3600).window).toMatch(/shorter than the duration/);
    expect(validateLocalTime({ ...local, defaultTimeZone: 'Mars/Base' }).defaultTimeZone).toMatch(/not a time zone/);
    expect(validateLocalTime({ ...local, quietFrom: '08:00', quietTo: '08:00' }).quietFrom).toMatch(/whole day/);
    const empty = emptyRollout();
    const rollout = {
      ...empty,
      variantsOn: true,
      canaryOn: true,
      variants: empty.variants.map((v) => ({ ...v, body: 'x' })),
    };
    expect(validateRollout({ ...rollout, holdout: '20' }, false)).toEqual({
      variants: 'The shares and the holdout add up to 110%, not 100%.',
    });
    expect(validateRollout(rollout, true).canary).toMatch(/cannot be combined/);
    expect(validateRollout({ ...rollout, canarySample: '60' }, false).canarySample).toMatch(/at most 50/);
    expect(validateRollout({ ...rollout, collapseKey: 'no spaces' }, false).collapseKey).toMatch(/1 to 128/);
    const same = { ...rollout, variants: rollout.variants.map((v) => ({ ...v, name: 'a' })) };
    expect(validateRollout(same, false)['variant1.name']).toBe('Another variant has this name.');
  });

  it('knows a time zone as the server does: a known name or an offset within ±14:00', () => {
    expect(['UTC', 'Europe/Berlin', 'america/new_york', '+05:30', '-14:00'].every(isTimeZone)).toBe(true);
    expect(['Mars/Base', '+14:30', '+05:60', 'GMT+01:00', ''].some(isTimeZone)).toBe(false);
  });

  it("puts the server's field on the form's", () => {
    expect(formFieldOf('deliverAt.window')).toBe('window');
    expect(formFieldOf('quietHours')).toBe('quietFrom');
    expect(formFieldOf('canary.thresholds.failedRatio')).toBe('canaryFailedPercent');
    expect(formFieldOf('canary')).toBe('canary');
    expect(rolloutFieldOf('variants[2].content.body')).toBe('variant2.body');
    expect(rolloutFieldOf('variants[1].share')).toBe('variant1.share');
    expect(rolloutFieldOf('holdout')).toBe('holdout');
  });

  it('starts a clone from the stored settings', () => {
    expect(windowText(5_400_000)).toBe('1h30m');
    expect(
      localTimeFormOf(
        { localTime: '08:00', windowMs: 7_200_000, missed: 'now', defaultTimeZone: 'UTC' },
        { from: '23:00', to: '06:00' },
      ),
    ).toMatchObject({
      localTimeOn: true,
      window: '2h',
      missed: 'now',
      quietOn: true,
      quietFrom: '23:00',
      quietTo: '06:00',
    });
    expect(
      rolloutFormOf({
        collapseKey: 'k',
        rollout: {
          canary: { sample: '0.5%', holdSeconds: 120, thresholds: { rejectedRatio: 0.1, failedRatio: 0.02 } },
          variants: [
            { name: 'x', share: 0.7, content: { body: 'X' } },
            { name: 'y', share: 0.3, content: { body: 'Y' } },
          ],
        },
      }),
    ).toMatchObject({
      collapseKey: 'k',
      canaryOn: true,
      canarySample: '0.5',
      canaryHoldMinutes: '2',
      canaryRejectedPercent: '10',
      variantsOn: true,
      holdout: '0',
    });
  });
});
