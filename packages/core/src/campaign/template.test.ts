import { TemplateError, ValidationError } from '../errors';
import { checkNewTask } from '../task/validate';
import type { FiringValues } from '../template/firing';
import { checkTemplate, templateTaskFields, type CampaignTemplate } from './template';

const base: CampaignTemplate = { listId: 'l_1', content: { body: 'Good morning' }, priority: 'normal' };
const canary = { sample: '1%', holdSeconds: 600, thresholds: { rejectedRatio: 0.05, failedRatio: 0.1 } };
const variants = [
  { name: 'a', share: 0.45, content: { body: 'A on {{firing.date}}', template: true as const } },
  { name: 'b', share: 0.45, content: { body: 'B', title: 'Bee' } },
];
const VALUES: FiringValues = { 'firing.date': '2026-11-27', 'firing.time': '09:00', 'firing.id': '3-1' };

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof ValidationError) && !(error instanceof TemplateError)) throw error;
    return (error as ValidationError).details.field;
  }
  return 'no error';
}

describe('campaign template: the task features it carries', () => {
  it('keeps collapse key, canary, variants with holdout, and both quiet-hours forms', () => {
    const withAll = { ...base, collapseKey: 'digest:daily', variants, holdout: 0.1 };
    expect(checkTemplate(withAll)).toEqual(withAll);
    expect(checkTemplate({ ...base, canary })).toEqual({ ...base, canary });
    const quiet = { hours: '22:00-08:00', during: 'offline' as const };
    expect(checkTemplate({ ...base, quietHours: quiet })).toEqual({ ...base, quietHours: quiet });
    expect(checkTemplate({ ...base, quietHours: '22:00-08:00' })).toEqual({ ...base, quietHours: '22:00-08:00' });
    // A holdout of 0 is no holdout: stored as absent, as a task's is.
    expect(
      checkTemplate({ ...base, variants: [variants[0], { ...variants[1], share: 0.55 }], holdout: 0 }),
    ).not.toHaveProperty('holdout');
  });

  it.each([
    ['template.collapseKey', { collapseKey: 'has space' }],
    ['template.collapseKey', { collapseKey: '' }],
    ['template.canary', { canary: 'yes' }],
    ['template.canary.sample', { canary: { ...canary, sample: '90%' } }],
    ['template.canary.holdSeconds', { canary: { ...canary, holdSeconds: -1 } }],
    [
      'template.canary.thresholds.failedRatio',
      { canary: { ...canary, thresholds: { rejectedRatio: 0, failedRatio: 2 } } },
    ],
    ['template.canary.thresholds.clicks', { canary: { ...canary, thresholds: { ...canary.thresholds, clicks: 1 } } }],
    ['template.canary', { canary, quietHours: '22:00-08:00' }],
    ['template.canary', { canary, deliverAt: { localTime: '09:00' } }],
    ['template.variants', { variants: [variants[0]] }],
    ['template.variants', { variants }],
    ['template.variants[1].share', { variants: [variants[0], { ...variants[1], share: 1 }], holdout: 0.1 }],
    ['template.variants[1].name', { variants: [variants[0], { ...variants[1], name: 'a' }], holdout: 0.1 }],
    [
      'template.variants[0].content.body',
      { variants: [{ ...variants[0], content: { body: '' } }, variants[1]], holdout: 0.1 },
    ],
    ['template.holdout', { variants, holdout: 1 }],
    ['template.holdout', { holdout: 0.1 }],
    ['template.quietHours', { quietHours: '08:00-08:00' }],
    ['template.quietHours.during', { quietHours: { hours: '22:00-08:00', during: 'never' } }],
    ['template.quietHours.hours', { quietHours: { during: 'hold' } }],
    ['template.quietHours.mode', { quietHours: { hours: '22:00-08:00', mode: 'x' } }],
    ['template.speed', { speed: 5 }],
  ])('refuses a bad %s, naming it', (field, change) => {
    expect(fieldOf(() => checkTemplate({ ...base, ...change }))).toBe(field);
  });

  it("parses a variant's content as a template content: firing variables allowed, unknown syntax refused", () => {
    const bad = [{ ...variants[0], content: { body: 'Hi {{', template: true } }, variants[1]];
    expect(fieldOf(() => checkTemplate({ ...base, variants: bad, holdout: 0.1 }))).toBe(
      'template.variants[0].content.body',
    );
  });
});

describe("a firing's task fields from its template", () => {
  it('carries them to a task the task validator accepts, variants filled with the firing values', () => {
    const template = checkTemplate({
      ...base,
      collapseKey: 'digest',
      quietHours: { hours: '22:00-08:00', during: 'offline' },
      variants,
      holdout: 0.1,
    });
    const fields = templateTaskFields(template, VALUES, 'campaign:3:1');
    expect(fields).toMatchObject({
      collapseKey: 'digest',
      quietHours: { from: '22:00', to: '08:00', during: 'offline' },
      rollout: {
        holdout: 0.1,
        variants: [
          { name: 'a', share: 0.45, content: { body: 'A on 2026-11-27' } },
          { name: 'b', share: 0.45, content: { body: 'B', title: 'Bee' } },
        ],
      },
    });
    // Only firing variables were named: the variant is sent as plain text.
    expect(fields.rollout!.variants![0]!.content).toEqual({ body: 'A on 2026-11-27' });
    expect(() =>
      checkNewTask({
        accountId: 'acme',
        listId: 'l_1',
        content: base.content,
        contentCrc: 1,
        priority: 'normal',
        sendAt: 1,
        expiresAt: 2,
        listCount: 0,
        ...fields,
      }),
    ).not.toThrow();
  });

  it('draws the rollout seed from the firing: the same firing the same seed, another firing another', () => {
    const template = checkTemplate({ ...base, canary });
    const seed = (key: string) => templateTaskFields(template, VALUES, key).rollout!.seed;
    expect(seed('campaign:3:1000')).toBe(seed('campaign:3:1000'));
    const seeds = new Set(Array.from({ length: 100 }, (_, i) => seed(`campaign:3:${i * 86_400_000}`)));
    expect(seeds.size).toBe(100);
    expect(templateTaskFields(template, VALUES, 'k').rollout!.canary).toEqual(canary);
  });

  it('gives no rollout, collapse key nor local time to a plain template', () => {
    expect(templateTaskFields(base, VALUES, 'k')).toEqual({});
  });
});
