/**
 * A campaign's no-resend scope and firing variables over real HTTP
 * (docs/campaigns.md, "No-resend scope", "Firing variables"): kept on the
 * template; an unknown scope, a bad or misplaced window and unknown fields are
 * 400 VALIDATION_FAILED naming the field, with nothing created; and the firing
 * history says in words when a firing reached nobody because of no-resend.
 */
import type { AddressInfo } from 'node:net';
import { ListRepository } from '@herald/audience';
import { compileConfig } from '@herald/core/config';
import { noopLogger } from '@herald/core/ports';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import type { PushChannel } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { createApiServer } from '../server';

const at = (iso: string) => Date.parse(iso);
let dir: TempDir;
let tasks: LevelTaskStore;
let campaigns: LevelCampaignStore;
let tokens: TestAccess;
let app: FastifyInstance;
let now = at('2025-03-28T12:00:00Z');
let base: string;

const body = {
  accountId: 'acme',
  name: 'Night digest',
  cron: '30 2 * * *',
  timeZone: 'europe/berlin',
  template: { listId: 'l_acme', content: { body: 'Your digest', title: 'Digest' }, ttlSeconds: 3600 },
};

beforeEach(async () => {
  now = at('2025-03-28T12:00:00Z');
  dir = await makeTempDir('herald-interface-campaigns-no-resend-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
  tokens = await openTestAccess();
  for (const [id, accountId] of [
    ['l_acme', 'acme'],
    ['l_other', 'other'],
  ]) {
    await tasks.putList({
      id: id!,
      accountId: accountId!,
      count: 10,
      checksum: 1,
      sorted: true,
      unique: true,
      bytes: 80,
      createdAt: 0,
    });
  }
  app = createApiServer({
    config: compileConfig({ tasks: { maxContentChars: 100 } }),
    store: tasks,
    access: tokens.access,
    campaigns,
    lists: new ListRepository(`${dir.path}/lists`),
    toScheduler: { send: async () => undefined, close: () => undefined } as unknown as PushChannel,
    clock: { now: () => now },
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await app.close();
  await tokens.close();
  await campaigns.close();
  await tasks.close();
  await dir.remove();
});

async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  token = tokens.adminToken,
) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
}

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
    expect((await campaigns.listCampaigns()).campaigns).toEqual([]);
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
    const suppressed = await tasks.createTask(newTask, 60_000);
    const sent = await tasks.createTask({ ...newTask, sendAt: 120_000 }, 120_000);
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
      const claimed = await tasks.claimTask(task.id, 'scheduler-1', 130_000);
      await tasks.updateTask(task.id, { epoch: claimed.epoch }, patch, 130_000);
    }
    for (const [scheduledAt, taskId] of [
      [60_000, suppressed.id],
      [120_000, sent.id],
    ] as const)
      await campaigns.recordFiring({ campaignId: 1, scheduledAt, outcome: 'fired', taskId, at: scheduledAt });
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
