/**
 * A campaign template's collapse key, canary, A/B variants with holdout and
 * object-form quiet hours, over real HTTP on real Level stores: kept on the
 * campaign, carried to each firing's task (the variants filled with the
 * firing's values, a rollout seed per firing), refused with 400 naming
 * `template.<field>` and nothing stored, and compared on an Idempotency-Key
 * retry.
 */
import { useCampaignApi, type CampaignApi } from './campaign-api.test-util';

const START = Date.parse('2025-03-28T12:00:00.250Z');
const canary = { sample: '5%', holdSeconds: 600, thresholds: { rejectedRatio: 0.05, failedRatio: 0.1 } };
const variants = [
  { name: 'short', share: 0.45, content: { body: 'Digest {{firing.date}}', template: true } },
  { name: 'long', share: 0.45, content: { title: 'Your digest', body: 'The long digest' } },
];
const body = {
  accountId: 'acme',
  name: 'Daily digest',
  cron: '0 9 * * *',
  timeZone: 'Europe/Berlin',
  template: { listId: 'l_acme', content: { body: 'Digest' }, ttlSeconds: 3600, noResend: { scope: 'firing' } },
};

const api = useCampaignApi('herald-interface-campaign-rollout-', START);
const call = (...args: Parameters<CampaignApi['call']>) => api.call(...args);

async function runTaskOf(template: object) {
  const created = await call('POST', '/api/v1/campaigns', { ...body, template: { ...body.template, ...template } });
  expect(created.status).toBe(201);
  const run = await call('POST', `/api/v1/campaigns/${created.body!.id}/run`);
  expect(run.body).toMatchObject({ outcome: 'fired' });
  return { campaign: created.body!, task: (await api.tasks.getTask(run.body!.taskId as number))! };
}

describe('campaign templates with collapse key, canary, variants and quiet hours', () => {
  it("carries collapse key, variants, holdout and quiet hours to the firing's task", async () => {
    const quietHours = { hours: '22:00-07:00', during: 'offline' };
    const { campaign, task } = await runTaskOf({ collapseKey: 'digest:daily', variants, holdout: 0.1, quietHours });
    expect(campaign.template).toMatchObject({ collapseKey: 'digest:daily', variants, holdout: 0.1, quietHours });
    expect(task).toMatchObject({
      collapseKey: 'digest:daily',
      quietHours: { from: '22:00', to: '07:00', during: 'offline' },
      rollout: {
        seed: expect.any(Number),
        holdout: 0.1,
        variants: [
          // The firing's values fill a variant's content as they fill the template's.
          { name: 'short', share: 0.45, content: { body: 'Digest 2025-03-28' } },
          { name: 'long', share: 0.45, content: { title: 'Your digest', body: 'The long digest' } },
        ],
      },
    });
    expect(task.rollout!.canary).toBeUndefined();
  });

  it("starts each firing's task as the template's canary, with a seed of its own", async () => {
    const { campaign, task } = await runTaskOf({ canary });
    expect(task.rollout).toEqual({ seed: expect.any(Number), canary });
    api.now += 60_000;
    const again = await call('POST', `/api/v1/campaigns/${campaign.id}/run`);
    const next = (await api.tasks.getTask(again.body!.taskId as number))!;
    expect(next.rollout!.canary).toEqual(canary);
    expect(next.rollout!.seed).not.toBe(task.rollout!.seed);
  });

  it.each([
    ['template.canary.sample', { canary: { ...canary, sample: '80%' } }],
    ['template.canary.thresholds.rejectedRatio', { canary: { ...canary, thresholds: { failedRatio: 0.1 } } }],
    ['template.canary', { canary, quietHours: '22:00-07:00' }],
    ['template.variants[1].share', { variants: [variants[0], { ...variants[1], share: 0 }], holdout: 0.1 }],
    ['template.variants', { variants }],
    ['template.holdout', { holdout: 0.2 }],
    ['template.collapseKey', { collapseKey: 'no spaces' }],
    ['template.quietHours.during', { quietHours: { hours: '22:00-07:00', during: 'later' } }],
  ])('refuses a bad %s with 400 naming it, storing nothing', async (field, template) => {
    const bad = await call('POST', '/api/v1/campaigns', { ...body, template: { ...body.template, ...template } });
    expect(bad.status).toBe(400);
    expect(bad.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    expect((await call('GET', '/api/v1/campaigns')).body!.campaigns).toEqual([]);
  });

  it('refuses a bad canary in a patch and keeps the template as it was', async () => {
    const { campaign } = await runTaskOf({ canary });
    const patched = await call('PATCH', `/api/v1/campaigns/${campaign.id}`, {
      template: { ...body.template, canary: { ...canary, holdSeconds: 90_000 } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body!.error.details.field).toBe('template.canary.holdSeconds');
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).body!.template.canary).toEqual(canary);
  });

  it('answers a retry with the same canary and variants, and refuses the key reused with another canary', async () => {
    const payload = { ...body, template: { ...body.template, canary, collapseKey: 'k' } };
    const headers = { 'idempotency-key': 'digest-1' };
    const first = await call('POST', '/api/v1/campaigns', payload, undefined, headers);
    const retry = await call('POST', '/api/v1/campaigns', payload, undefined, headers);
    expect([first.status, retry.status]).toEqual([201, 200]);
    expect(retry.body!.id).toBe(first.body!.id);
    const other = { ...payload, template: { ...payload.template, canary: { ...canary, sample: '6%' } } };
    const reused = await call('POST', '/api/v1/campaigns', other, undefined, headers);
    expect(reused.status).toBe(409);
    expect(reused.body!.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
