import { ValidationError } from '../errors';
import {
  applyCampaignPatch,
  compileCampaignQuery,
  compileFiringQuery,
  newCampaignRecord,
  newFiringRecord,
  type NewCampaign,
} from './model';

const input: NewCampaign = {
  accountId: 'acme',
  name: 'Morning news',
  cron: '0 9 * * *',
  timeZone: 'europe/berlin',
  template: { listId: 'l_1', content: { body: 'Good morning' }, priority: 'normal' },
};

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details.field;
  }
  return 'no error';
}

describe('campaign records', () => {
  it('builds a new record: enabled by default, canonical zone, active from creation', () => {
    expect(newCampaignRecord(3, input, 1000)).toEqual({
      id: 3,
      ...input,
      timeZone: 'Europe/Berlin',
      enabled: true,
      createdAt: 1000,
      updatedAt: 1000,
      activeFrom: 1000,
    });
  });

  it.each([
    ['accountId', { accountId: '' }],
    ['name', { name: 7 }],
    ['name', { name: 'x'.repeat(201) }],
    ['cron', { cron: '* * *' }],
    ['timeZone', { timeZone: 'Nowhere/Special' }],
    ['enabled', { enabled: 'yes' }],
    ['template', { template: null }],
    ['template.listId', { template: { ...input.template, listId: '' } }],
    ['template.content', { template: { ...input.template, content: 'hi' } }],
    ['template.content.body', { template: { ...input.template, content: { body: '' } } }],
    ['template.content.title', { template: { ...input.template, content: { body: 'b', title: 1 } } }],
    ['template.priority', { template: { ...input.template, priority: 'urgent' } }],
    ['template.ttlSeconds', { template: { ...input.template, ttlSeconds: 0 } }],
  ])('names the bad field %s', (field, change) => {
    expect(fieldOf(() => newCampaignRecord(1, { ...input, ...change } as unknown as NewCampaign, 1000))).toBe(field);
  });

  it('restarts the schedule when enabled again or when cron or time zone change, and not otherwise', () => {
    const campaign = newCampaignRecord(1, input, 1000);
    expect(applyCampaignPatch(campaign, { name: 'Renamed' }, 2000)).toMatchObject({
      name: 'Renamed',
      updatedAt: 2000,
      activeFrom: 1000,
    });
    expect(applyCampaignPatch(campaign, { cron: '0 10 * * *' }, 2000).activeFrom).toBe(2000);
    expect(applyCampaignPatch(campaign, { timeZone: 'UTC' }, 2000).activeFrom).toBe(2000);
    expect(applyCampaignPatch(campaign, { timeZone: 'europe/berlin' }, 2000).activeFrom).toBe(1000);
    const disabled = applyCampaignPatch({ ...campaign, lastScheduledAt: 1500 }, { enabled: false }, 2000);
    expect(disabled).toMatchObject({ enabled: false, activeFrom: 1000, lastScheduledAt: 1500 });
    expect(applyCampaignPatch(disabled, { enabled: true }, 3000)).toMatchObject({
      enabled: true,
      activeFrom: 3000,
      lastScheduledAt: 1500,
    });
  });

  it('keeps a personalised template and parses it at once', () => {
    const personal = {
      ...input,
      template: { ...input.template, content: { body: 'Hi {{region}}', template: true as const } },
    };
    expect(newCampaignRecord(1, personal, 0).template.content).toEqual({ body: 'Hi {{region}}', template: true });
    expect(() =>
      newCampaignRecord(
        1,
        { ...personal, template: { ...personal.template, content: { body: 'Hi {{name}}', template: true } } },
        0,
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'TEMPLATE_INVALID',
        details: expect.objectContaining({ field: 'template.content.body', position: 5 }),
      }),
    );
    expect(
      fieldOf(() =>
        newCampaignRecord(
          1,
          { ...personal, template: { ...personal.template, content: { body: 'x', template: 'yes' as never } } },
          0,
        ),
      ),
    ).toBe('template.content.template');
  });

  it("keeps a template's targeting query and parses it at once", () => {
    const targeted = { ...input, template: { ...input.template, targeting: 'region:eu AND tag:beta' } };
    expect(newCampaignRecord(1, targeted, 0).template.targeting).toBe('region:eu AND tag:beta');
    expect(newCampaignRecord(1, input, 0).template).not.toHaveProperty('targeting');
    expect(() =>
      newCampaignRecord(1, { ...input, template: { ...input.template, targeting: 'region:eu AND' } }, 0),
    ).toThrow(
      expect.objectContaining({
        code: 'QUERY_INVALID',
        details: expect.objectContaining({ field: 'template.targeting', position: 13 }),
      }),
    );
    const campaign = newCampaignRecord(1, input, 1000);
    expect(() =>
      applyCampaignPatch(campaign, { template: { ...input.template, targeting: 'colour:red' } }, 2000),
    ).toThrow(expect.objectContaining({ code: 'QUERY_INVALID' }));
  });

  it("keeps a template's no-resend scope, copied, and refuses a bad one naming its field", () => {
    const digest = { ...input, template: { ...input.template, noResend: { scope: 'window' as const, window: '7d' } } };
    expect(newCampaignRecord(1, digest, 0).template.noResend).toEqual({ scope: 'window', window: '7d' });
    expect(newCampaignRecord(1, input, 0).template).not.toHaveProperty('noResend');
    const bad = { ...input.template, noResend: { scope: 'hourly' } } as unknown as typeof input.template;
    expect(() => newCampaignRecord(1, { ...input, template: bad }, 0)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'template.noResend.scope' } }),
    );
    const campaign = newCampaignRecord(1, input, 1000);
    const patched = applyCampaignPatch(
      campaign,
      { template: { ...input.template, noResend: { scope: 'firing' } } },
      2000,
    );
    expect(patched.template.noResend).toEqual({ scope: 'firing' });
  });

  it('refuses a bad patch naming the field', () => {
    const campaign = newCampaignRecord(1, input, 1000);
    expect(fieldOf(() => applyCampaignPatch(campaign, { cron: '99 * * * *' }, 2000))).toBe('cron');
    expect(fieldOf(() => applyCampaignPatch(campaign, { enabled: 1 as never }, 2000))).toBe('enabled');
    expect(fieldOf(() => applyCampaignPatch(campaign, [] as never, 2000))).toBe('patch');
  });

  it('compiles queries with defaults', () => {
    expect(compileCampaignQuery()).toEqual({ accountIds: undefined, enabled: undefined, afterId: 0, limit: 100 });
    expect(compileCampaignQuery({ accountIds: ['a', 'a', 'b'], enabled: true, afterId: 5, limit: 2 })).toEqual({
      accountIds: ['a', 'b'],
      enabled: true,
      afterId: 5,
      limit: 2,
    });
    expect(fieldOf(() => compileCampaignQuery({ limit: 0 }))).toBe('limit');
    expect(fieldOf(() => compileCampaignQuery({ afterId: -1 }))).toBe('afterId');
    expect(fieldOf(() => compileCampaignQuery({ accountIds: 'a' as never }))).toBe('accountIds');
    expect(compileFiringQuery({ beforeScheduledAt: 10 })).toEqual({ beforeScheduledAt: 10, limit: 100 });
    expect(fieldOf(() => compileFiringQuery({ beforeScheduledAt: 1.5 }))).toBe('beforeScheduledAt');
  });

  it('checks firings: a fired one names its task', () => {
    expect(newFiringRecord({ campaignId: 1, scheduledAt: 10, outcome: 'missed', reason: 'late', at: 20 })).toEqual({
      campaignId: 1,
      scheduledAt: 10,
      outcome: 'missed',
      taskId: null,
      reason: 'late',
      at: 20,
    });
    expect(fieldOf(() => newFiringRecord({ campaignId: 1, scheduledAt: 10, outcome: 'fired', at: 20 }))).toBe('taskId');
    expect(fieldOf(() => newFiringRecord({ campaignId: 0, scheduledAt: 10, outcome: 'missed', at: 20 }))).toBe(
      'campaignId',
    );
    expect(fieldOf(() => newFiringRecord({ campaignId: 1, scheduledAt: 10, outcome: 'late' as never, at: 20 }))).toBe(
      'outcome',
    );
  });
});
