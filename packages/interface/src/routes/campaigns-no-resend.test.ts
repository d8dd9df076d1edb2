/**
 * A campaign's no-resend scope and firing variables over real HTTP
 * (docs/campaigns.md, "No-resend scope", "Firing variables"): kept on the
 * template; an unknown scope, a bad or misplaced window and unknown fields are
 * 400 VALIDATION_FAILED naming the field, with nothing created; and the firing
 * history says in words when a firing reached nobody because of no-resend.
 */
import { useCampaignApi, type CampaignApi } from './campaign-api.test-util';

const at = (iso: string) => Date.parse(iso);

const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'europe/berlin',
  template: { listId: 'l_acme', content: { body: 'Your digest', title: 'Digest' }, ttlSeconds: 3600 },
};

const api = useCampaignApi('herald-interface-campaigns-no-resend-', at('2025-03-28T12:00:00Z'));
const call = (...args: Parameters<CampaignApi['call']>) => api.call(...args);

describe('campaign no-resend scope', () => {
  const withScope = (noResend: unknown) => ({ ...body, template: { ...body.template, noResend } });

  it('keeps the scope on the template, changes it by PATCH, and a template without one has none', async () => {
    const created = await call('POST', '/api/v1/campaigns', withScope({ scope: 'window', window: '7d' }));
    expect(created.status).toBe(201);
    expect(created.body!.template.noResend).toEqual({ scope: 'window', window: '7d' });
    const patched = await call('PATCH', '/api/v1/campaigns/1', { template: withScope({ scope: 'firing' }).template });
    expect(patched.body!.template.noResend).toEqual({ scope: 'firing' });
    expect((await call('POST', '/api/v1/campaigns', body)).body!.template).not.toHaveProperty('noResend');
  });

  it.each([
    [{ scope: 'daily' }, 'template.noResend.scope'],
    [{}, 'template.noResend.scope'],
    [{ scope: 'window' }, 'template.noResend.window'],
    [{ scope: 'window', window: '7 days' }, 'template.noResend.window'],
    [{ scope: 'window', window: '400d' }, 'template.noResend.window'],
    [{ scope: 'content', window: '7d' }, 'template.noResend.window'],
    [{ scope: 'firing', every: 'day' }, 'template.noResend.every'],
    ['firing', 'template.noResend'],
  ])('refuses noResend %j with 400 naming %s, creating nothing', async (noResend, field) => {
    const refused = await call('POST', '/api/v1/campaigns', withScope(noResend));
    expect(refused.status).toBe(400);
    expect(refused.body!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    expect((await api.campaigns.listCampaigns()).campaigns).toEqual([]);
  });

  it('accepts the firing variables in a template content and refuses an unknown one with its field', async () => {
    const content = { body: 'Digest of {{firing.date}} {{firing.time}}', title: '{{ firing.id }}', template: true };
    const created = await call('POST', '/api/v1/campaigns', { ...body, template: { ...body.template, content } });
    expect(created.status).toBe(201);
    const bad = { ...content, body: 'Digest of {{firing.day}}' };
    const refused = await call('POST', '/api/v1/campaigns', { ...body, template: { ...body.template, content: bad } });
    expect(refused.status).toBe(422);
    expect(refused.body!.error).toMatchObject({
      code: 'TEMPLATE_INVALID',
      details: { field: 'template.content.body' },
    });
  });

  it('notes a fired firing whose task reached nobody because everyone had the content already', async () => {
    await call('POST', '/api/v1/campaigns', body);
    const newTask = {
      accountId: 'acme',
      listId: 'l_acme',
      content: { body: 'Your digest' },
      contentCrc: 1,
      priority: 'normal' as const,
      sendAt: 60_000,
      expiresAt: 3_600_000,
      listCount: 10,
    };
    const suppressed = await api.tasks.createTask(newTask, 60_000);
    const sent = await api.tasks.createTask({ ...newTask, sendAt: 120_000 }, 120_000);
    const report = (kept: number, alreadySent: number) => ({
      ...suppressed.report,
      kept,
      removed: { duplicate: 0, blacklisted: 0, already_sent: alreadySent },
    });
    // What pre-processing leaves on the tasks: their filtered lists and counts.
    for (const [task, patch] of [
      [suppressed, { filteredListId: 'f_1', report: report(0, 10) }],
      [sent, { filteredListId: 'f_2', report: report(4, 6) }],
    ] as const) {
      const claimed = await api.tasks.claimTask(task.id, 'scheduler-1', 130_000);
      await api.tasks.updateTask(task.id, { epoch: claimed.epoch }, patch, 130_000);
    }
    for (const [scheduledAt, taskId] of [
      [60_000, suppressed.id],
      [120_000, sent.id],
    ] as const)
      await api.campaigns.recordFiring({ campaignId: 1, scheduledAt, outcome: 'fired', taskId, at: scheduledAt });
    const history = await call('GET', '/api/v1/campaigns/1/firings');
    const [later, earlier] = history.body!.firings as { note: { code: string; message: string } | null }[];
    expect(later!.note).toBeNull();
    expect(earlier!.note).toEqual({
      code: 'reached_nobody_already_sent',
      message: expect.stringMatching(
        /^Reached nobody: all 10 recipients already got this content\. .*'firing' or a window/,
      ),
    });
  });
});
