import {
  campaignNotFound,
  checkCampaignPeriod,
  compileSchedule,
  MAX_FIRE_INSTANT,
  nextFireTimes,
  projectedDailyReach,
  type Campaign,
  type CampaignPatch,
  type CampaignTemplate,
  type ProjectedDailyReach,
  checkTemplate as checkCampaignTemplate,
} from '@herald/core/campaign';
import { checkCampaignContent } from '@herald/core/template';
import { taskContentOf } from '@herald/core/task';
import { NotFoundError, ValidationError } from '@herald/core';
import { parseDateTime } from '@herald/core/time';
import type { CampaignStore } from '@herald/core/ports';
import { firingViews } from './campaign-firings';
import {
  createSchema,
  firingsQuery,
  idParams,
  listQuery,
  patchSchema,
  previewQuery,
  type CreateCampaignBody,
  type PatchCampaignBody,
  type TemplateBody,
} from './campaign-request';
import { assertSameCampaignRequest } from './campaign-idempotency';
import { campaignRunRoute } from './campaign-run';
import { apiIdempotencyKey } from './idempotency';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount, noteAudit, visibleAccounts } from '../access/request-access';

/** How many upcoming fire times a campaign answer and the preview carry (the console shows them). */
export const NEXT_FIRE_TIMES = 5;

/** A campaign as the API answers it: the stored record, its next fire times (ISO 8601, UTC) and what it reaches a day. */
export type CampaignView = Campaign & { nextFireTimes: string[]; projectedDailyReach: ProjectedDailyReach };

/**
 * Cron campaigns (docs/campaigns.md, docs/api.md "Campaigns"): create, list,
 * read, change, enable/disable, run now (campaign-run.ts), delete, the firing history, and a preview of
 * the next fire times of any expression (the console calls it while the user
 * types). Every answer that holds a campaign carries its next five fire times.
 * An operator sees only its accounts' campaigns: another account's campaign
 * answers exactly like a missing one (CAMPAIGN_NOT_FOUND), and listings leave
 * other accounts out.
 */
export function campaignRoutes(app: FastifyInstance, deps: ApiDeps & { campaigns: CampaignStore }): void {
  const { config, campaigns, store, clock } = deps;

  /** The answer for a campaign; `counts` caches list sizes over a page of campaigns sharing lists. */
  async function view(campaign: Campaign, counts = new Map<string, Promise<number | null>>()): Promise<CampaignView> {
    const listId = campaign.template.listId;
    if (!counts.has(listId))
      counts.set(
        listId,
        store.getList(listId).then((list) => list?.count ?? null),
      );
    const now = clock.now();
    // Shown before the campaign is enabled too: the console asks for it then.
    const reach = projectedDailyReach(campaign, Math.max(now, campaign.activeFrom), await counts.get(listId)!);
    return { ...campaign, nextFireTimes: upcoming(campaign, now), projectedDailyReach: reach };
  }

  /** Refuses a schedule that does not parse, or fires closer together than campaigns.minPeriodMs (400 naming cron). */
  const checkSchedule = (cron: string, timeZone: string) =>
    checkCampaignPeriod({ cron, timeZone }, config.campaigns.minPeriodMs, clock.now());

  /** The campaign, if it exists and the caller may see its account; else CAMPAIGN_NOT_FOUND either way. */
  async function visibleCampaign(request: FastifyRequest, raw: string): Promise<Campaign> {
    const id = Number(raw);
    noteAudit(request, { resource: `campaign:${id}` });
    const missing = () => campaignNotFound(id);
    const campaign = await campaigns.getCampaign(id);
    if (campaign === undefined) throw missing();
    assertCanSeeAccount(request, campaign.accountId, missing);
    return campaign;
  }

  /** Checks what the store cannot know: the content bound, the lifetime bound, and that the list is the account's. */
  async function checkTemplate(accountId: string, template: TemplateBody): Promise<CampaignTemplate> {
    if (template.content.body.length > config.tasks.maxContentChars) {
      throw new ValidationError(`template.content.body is longer than ${config.tasks.maxContentChars} characters`, {
        field: 'template.content.body',
      });
    }
    if (template.ttlSeconds !== undefined && template.ttlSeconds * 1000 > config.tasks.maxTtlMs) {
      throw new ValidationError(`template.ttlSeconds exceeds the maximum of ${config.tasks.maxTtlMs / 1000}`, {
        field: 'template.ttlSeconds',
        maximum: config.tasks.maxTtlMs / 1000,
      });
    }
    const list = await store.getList(template.listId);
    if (list === undefined || list.accountId !== accountId) {
      throw new NotFoundError(
        'LIST_NOT_FOUND',
        `recipient list ${template.listId} does not exist for account ${accountId}`,
        { field: 'template.listId' },
      );
    }
    const { body, title } = template.content;
    const content = taskContentOf({
      body,
      ...(title === undefined ? {} : { title }),
      ...(template.content.template === true ? { template: true } : {}),
    });
    // A campaign's template may name the firing's variables too ({{firing.date}}): TEMPLATE_INVALID otherwise.
    checkCampaignContent(content, 'template.content');
    // The task's own validators judge the rest (collapse key, canary, variants, local time), each refusal naming
    // template.<field>, before anything is stored.
    return checkCampaignTemplate({ ...template, content, priority: template.priority ?? 'normal' });
  }

  app.get<{ Querystring: { cron: string; timeZone: string; after?: string } }>(
    '/api/v1/campaigns/preview',
    { schema: { querystring: previewQuery } },
    async (request) => {
      const { cron, timeZone, after } = request.query;
      const from = after === undefined ? clock.now() : parseDateTime(after, 'after');
      if (from > MAX_FIRE_INSTANT)
        throw new ValidationError(`after '${after}' is past the last fire time a schedule has (9999-12-31T23:59:59Z)`, {
          field: 'after',
        });
      const schedule = compileSchedule({ cron, timeZone });
      return {
        cron,
        timeZone: schedule.timeZone,
        nextFireTimes: nextFireTimes(schedule, from, NEXT_FIRE_TIMES).map(iso),
      };
    },
  );

  app.post<{ Body: CreateCampaignBody }>(
    '/api/v1/campaigns',
    { schema: { body: createSchema } },
    async (request, reply) => {
      const body = request.body;
      assertCanSeeAccount(
        request,
        body.accountId,
        () =>
          new NotFoundError(
            'LIST_NOT_FOUND',
            `recipient list ${body.template.listId} does not exist for account ${body.accountId}`,
            { field: 'template.listId' },
          ),
      );
      // Schedule first: the console shows these errors as the user types, before the list matters.
      checkSchedule(body.cron, body.timeZone);
      const idempotencyKey = apiIdempotencyKey(request.headers['idempotency-key'], body.accountId);
      if (idempotencyKey !== undefined) {
        // A retry of a request that already created its campaign: that campaign, 200 instead of 201.
        const existing = await campaigns.getCampaignByIdempotencyKey(idempotencyKey);
        if (existing !== undefined) {
          assertSameCampaignRequest(existing, body);
          noteAudit(request, { resource: `campaign:${existing.id}` });
          return reply.code(200).send(await view(existing));
        }
      }
      const template = await checkTemplate(body.accountId, body.template);
      const created = await campaigns.createCampaign(
        {
          accountId: body.accountId,
          name: body.name,
          cron: body.cron,
          timeZone: body.timeZone,
          ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
          template,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        },
        clock.now(),
      );
      // A concurrent request with the same key may have created it first: the store answers that campaign.
      if (idempotencyKey !== undefined) assertSameCampaignRequest(created, body);
      noteAudit(request, { resource: `campaign:${created.id}` });
      return reply.code(201).send(await view(created));
    },
  );

  app.get<{ Querystring: { accountId?: string; enabled?: boolean; q?: string; cursor?: number; limit?: number } }>(
    '/api/v1/campaigns',
    { schema: { querystring: listQuery } },
    async (request) => {
      const { accountId, enabled, q, cursor, limit } = request.query;
      const visible = visibleAccounts(request);
      let accountIds: readonly string[] | undefined = accountId === undefined ? undefined : [accountId];
      if (visible !== 'all') {
        // Another account's campaigns are not there for an operator: the same empty page as an account without any.
        if (accountId !== undefined && !visible.includes(accountId)) return { campaigns: [], nextCursor: null };
        accountIds ??= visible;
      }
      const page = await campaigns.listCampaigns({
        ...(accountIds === undefined ? {} : { accountIds }),
        ...(enabled === undefined ? {} : { enabled }),
        ...(q === undefined ? {} : { q }),
        afterId: cursor,
        limit,
      });
      const counts = new Map<string, Promise<number | null>>();
      return {
        campaigns: await Promise.all(page.campaigns.map((campaign) => view(campaign, counts))),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/campaigns/:id',
    { schema: { params: idParams } },
    async (request) => await view(await visibleCampaign(request, request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: PatchCampaignBody }>(
    '/api/v1/campaigns/:id',
    { schema: { params: idParams, body: patchSchema } },
    async (request) => {
      const campaign = await visibleCampaign(request, request.params.id);
      const body = request.body;
      if (body.cron !== undefined || body.timeZone !== undefined)
        checkSchedule(body.cron ?? campaign.cron, body.timeZone ?? campaign.timeZone);
      const patch: CampaignPatch = {
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.cron === undefined ? {} : { cron: body.cron }),
        ...(body.timeZone === undefined ? {} : { timeZone: body.timeZone }),
        ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
        ...(body.template === undefined ? {} : { template: await checkTemplate(campaign.accountId, body.template) }),
      };
      return await view(await campaigns.updateCampaign(campaign.id, patch, clock.now()));
    },
  );

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(
      `/api/v1/campaigns/:id/${action}`,
      { schema: { params: idParams } },
      async (request) => {
        const campaign = await visibleCampaign(request, request.params.id);
        return await view(
          campaign.enabled === enabled
            ? campaign
            : await campaigns.updateCampaign(campaign.id, { enabled }, clock.now()),
        );
      },
    );
  }

  campaignRunRoute(app, deps, visibleCampaign);

  app.delete<{ Params: { id: string } }>(
    '/api/v1/campaigns/:id',
    { schema: { params: idParams } },
    async (request, reply) => {
      const campaign = await visibleCampaign(request, request.params.id);
      if (!(await campaigns.deleteCampaign(campaign.id))) throw campaignNotFound(campaign.id);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { id: string }; Querystring: { cursor?: number; limit?: number } }>(
    '/api/v1/campaigns/:id/firings',
    { schema: { params: idParams, querystring: firingsQuery } },
    async (request) => {
      const campaign = await visibleCampaign(request, request.params.id);
      const { cursor, limit } = request.query;
      const page = await campaigns.listFirings(campaign.id, {
        ...(cursor === undefined ? {} : { beforeScheduledAt: cursor }),
        ...(limit === undefined ? {} : { limit }),
      });
      return { firings: await firingViews(store, campaign, page.firings), nextCursor: page.nextCursor };
    },
  );
}

/** The next fire times after now (and after the schedule took effect); none for a disabled campaign. */
function upcoming(campaign: Campaign, now: number): string[] {
  if (!campaign.enabled) return [];
  const from = Math.max(now, campaign.activeFrom, campaign.lastScheduledAt ?? 0);
  return nextFireTimes(campaign, Math.min(from, MAX_FIRE_INSTANT), NEXT_FIRE_TIMES).map(iso);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
