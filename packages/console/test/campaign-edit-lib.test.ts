import type { Campaign } from '../src/api/types';
import { draftErrorText, draftFieldOf, draftOf, hoursOf, patchOf, validateDraft } from '../src/lib/campaign-edit';
import { durationHoursError } from '../src/lib/campaign-form';

/** The campaign page's edit form, without a browser: the draft, its checks, the PATCH body, refusals in words. */
const campaign: Campaign = {
  id: 3,
  accountId: 'acme',
  name: 'Digest',
  cron: '0 9 * * *',
  timeZone: 'Europe/Paris',
  enabled: true,
  template: {
    listId: 'l_1',
    content: { body: 'Hello {{firing.date}}', template: true },
    priority: 'normal',
    ttlSeconds: 5400,
    targeting: 'region:eu',
    noResend: { scope: 'window', window: '14d' },
  },
  createdAt: 0,
  updatedAt: 0,
  nextFireTimes: [],
};

/** An API refusal as the client builds it (the class needs a browser; its shape is what the form reads). */
const refusal = (code: string, field: string, details: Record<string, unknown> = {}) => ({
  code,
  message: `server: ${code}`,
  field,
  details,
});

describe('campaign edit form', () => {
  it('starts from the campaign, with the duration in hours', () => {
    expect(draftOf(campaign)).toMatchObject({
      listId: 'l_1',
      priority: 'normal',
      durationHours: '1.5',
      noResendScope: 'window',
      noResendWindowDays: '14',
    });
    expect(hoursOf(undefined)).toBe('');
    expect(hoursOf(7200)).toBe('2');
  });

  it('sends the whole template, keeping what the form does not show, with the new list, priority and duration', () => {
    const draft = { ...draftOf(campaign), listId: 'l_2', priority: 'realtime' as const, durationHours: '2' };
    expect(patchOf(campaign, draft).template).toEqual({
      listId: 'l_2',
      content: { body: 'Hello {{firing.date}}', template: true },
      priority: 'realtime',
      ttlSeconds: 7200,
      targeting: 'region:eu',
      noResend: { scope: 'window', window: '14d' },
    });
    // An emptied duration is the server's default: no ttlSeconds at all.
    expect(patchOf(campaign, { ...draft, durationHours: ' ' }).template).not.toHaveProperty('ttlSeconds');
  });

  it("keeps the template's local time and quiet hours unless changed (the PATCH replaces the template whole)", () => {
    const local: Campaign = {
      ...campaign,
      template: { ...campaign.template, deliverAt: { localTime: '08:30', missed: 'skip' }, quietHours: '22:00-07:00' },
    };
    expect(patchOf(local, { ...draftOf(local), name: 'Renamed' }).template).toMatchObject({
      deliverAt: { localTime: '08:30', missed: 'skip' },
      quietHours: '22:00-07:00',
    });
    expect(patchOf(campaign, draftOf(campaign)).template).not.toHaveProperty('deliverAt');
    const draft = draftOf(local);
    expect(patchOf(local, { ...draft, local: { ...draft.local, quietOn: false } }).template).not.toHaveProperty(
      'quietHours',
    );
    expect(validateDraft({ ...draft, local: { ...draft.local, quietTo: '22:00' } })).toEqual({
      quietFrom: 'Quiet from and until are equal: that is the whole day, nothing could land.',
    });
  });

  it("keeps the template's collapse key, canary and variants, sends them back as set, and puts their refusals on their fields", () => {
    const canary = { sample: 2000, holdSeconds: 900, thresholds: { rejectedRatio: 0.05, failedRatio: 0.1 } };
    const variants = [
      { name: 'a', share: 0.6, content: { body: 'A {{firing.date}}', template: true as const } },
      { name: 'b', share: 0.3, content: { body: 'B', title: 'Bee' } },
    ];
    const withRollout: Campaign = {
      ...campaign,
      template: { ...campaign.template, collapseKey: 'digest', canary, variants, holdout: 0.1 },
    };
    const draft = draftOf(withRollout);
    expect(draft.rollout).toMatchObject({
      collapseKey: 'digest',
      canaryOn: true,
      canaryBy: 'count',
      canarySample: '2000',
      canaryHoldMinutes: '15',
      variantsOn: true,
      holdout: '10',
    });
    expect(validateDraft(draft)).toEqual({});
    // A personalised template's variants stay personalised, as a task's do.
    expect(patchOf(withRollout, draft).template).toMatchObject({
      collapseKey: 'digest',
      canary,
      variants: [variants[0], { ...variants[1], content: { ...variants[1]!.content, template: true } }],
      holdout: 0.1,
    });
    // A canary cannot wait on quiet hours: the console says so before sending.
    const quiet = { ...draft, local: { ...draft.local, quietOn: true } };
    expect(validateDraft(quiet).canary).toMatch(/cannot be combined/);
    expect(draftFieldOf('template.canary.sample')).toBe('canarySample');
    expect(draftFieldOf('template.variants[1].share')).toBe('variant1.share');
    expect(draftFieldOf('template.holdout')).toBe('holdout');
    expect(draftFieldOf('template.collapseKey')).toBe('collapseKey');
    expect(draftFieldOf('canary.sample')).toBeUndefined();
  });

  it('checks the duration in hours against the default maximum, and a list is required', () => {
    expect(durationHoursError('')).toBeUndefined();
    expect(durationHoursError('720')).toBeUndefined();
    expect(durationHoursError('721')).toBe('At most 720 hours (30 days).');
    expect(durationHoursError('-1')).toBe('A positive number of hours.');
    expect(durationHoursError('two')).toBe('A positive number of hours.');
    expect(validateDraft({ ...draftOf(campaign), listId: '', durationHours: '0' })).toEqual({
      listId: 'Upload the list each firing sends to, or discard the changes.',
      durationHours: 'A positive number of hours.',
    });
  });

  it("puts the server's refusals on their fields in the form's words", () => {
    expect(draftFieldOf('template.ttlSeconds')).toBe('durationHours');
    expect(draftFieldOf('template.listId')).toBe('listId');
    expect(draftFieldOf('template.priority')).toBe('priority');
    expect(draftFieldOf('somethingElse')).toBeUndefined();
    expect(draftErrorText(refusal('VALIDATION_FAILED', 'template.ttlSeconds', { maximum: 864_000 }), 'acme')).toBe(
      'At most 240 hours (10 days).',
    );
    expect(draftErrorText(refusal('LIST_NOT_FOUND', 'template.listId'), 'acme')).toBe(
      "That list is not one of account acme's lists any more: upload the list again.",
    );
    expect(draftErrorText(refusal('VALIDATION_FAILED', 'name'), 'acme')).toBe('Server: VALIDATION_FAILED'); // any other refusal: the console's general wording;
  });
});
