import { accountConfirmation, assertConfirmed } from '@herald/core/account-quota';
import { fireCampaign, manualRunTime, type Campaign, type CampaignFiring } from '@herald/core/campaign';
import { AccountQuotaError, ErrorCodes, HeraldError, NotFoundError } from '@herald/core';
import type { CampaignStore } from '@herald/core/ports';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { checkQuota } from './account-quota';
import { firingViews } from './campaign-firings';
import { apiIdempotencyKey } from './idempotency';

const runParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
} as const;

const runBody = {
  type: 'object',
  additionalProperties: false,
  // The list's recipient count, as for a task: needed when the account's confirmation rule asks for it.
  properties: { confirm: { type: 'integer', minimum: 0 } },
} as const;

/**
 * POST /api/v1/campaigns/:id/run (docs/campaigns.md, "Run now"): fires the
 * campaign once now, outside its schedule and whether or not it is enabled,
 * through the same firing path as the controller's cron pass (core
 * fireCampaign): its task made from the template, the no-resend scope, the
 * account's quotas. It is the account's broadcast like any task created
 * through the API, so the account's confirmation rule applies (409
 * CONFIRMATION_REQUIRED unless `confirm` is the list's recipient count), and
 * a refusal seen before firing (the list is gone, a quota is full) answers
 * the error with nothing recorded. The run is recorded in the firing history
 * with `manual: true`; the answer (201) is that record with the task id.
 *
 * With an `Idempotency-Key` header the run is kept beside its firing
 * (the firing's run key, scoped by the campaign's account like the task and
 * campaign keys): a retry with the key answers that firing (200) and fires
 * nothing; the key used before for another campaign is 409
 * IDEMPOTENCY_KEY_REUSED. The firing's task keeps its
 * `campaign:<id>:<scheduledAt>` key, so the task still names its campaign.
 */
export function campaignRunRoute(
  app: FastifyInstance,
  deps: ApiDeps & { campaigns: CampaignStore },
  visibleCampaign: (request: FastifyRequest, raw: string) => Promise<Campaign>,
): void {
  const { config, campaigns, store, clock } = deps;

  app.post<{ Params: { id: string }; Body: { confirm?: number } | undefined }>(
    '/api/v1/campaigns/:id/run',
    {
      schema: { params: runParams, body: runBody },
      // The body is optional: a run without one is a run without `confirm`.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const campaign = await visibleCampaign(request, request.params.id);
      const runKey = apiIdempotencyKey(request.headers['idempotency-key'], campaign.accountId);
      const earlier = runKey === undefined ? undefined : await campaigns.getFiringByRunKey(runKey);
      if (earlier !== undefined) {
        const [view] = await firingViews(store, campaign, [answeredBefore(campaign, earlier)]);
        return reply.code(200).send(view);
      }
      const now = clock.now();
      const list = await store.getList(campaign.template.listId);
      if (list === undefined || list.accountId !== campaign.accountId) throw listGone(campaign);
      const reach = { recipients: list.count, startAt: now, now };
      assertConfirmed(
        await accountConfirmation(deps.accounts, config.accounts, campaign.accountId),
        reach,
        request.body?.confirm,
      );
      // The refusal with its numbers (which limit, how much is used), before anything is recorded.
      await checkQuota(
        deps,
        {
          accountId: campaign.accountId,
          idempotencyKey: undefined,
          sendAt: now,
          recipients: list.count,
          speed: undefined,
        },
        now,
      );
      const firing = await fireCampaign(
        {
          campaigns,
          store,
          logger: deps.logger,
          submit: (taskId) => deps.toScheduler.send({ kind: 'task.submitted', taskId }),
          ...(deps.accounts === undefined ? {} : { quota: { accounts: deps.accounts, policy: config.accounts } }),
        },
        campaign,
        manualRunTime(now),
        now,
        { defaultTtlMs: config.tasks.defaultTtlMs, manual: true, ...(runKey === undefined ? {} : { runKey }) },
      );
      if (firing.outcome !== 'fired') throw missedRun(campaign, firing);
      const [view] = await firingViews(store, campaign, [firing]);
      return reply.code(201).send(view);
    },
  );
}

function listGone(campaign: Campaign): NotFoundError {
  return new NotFoundError(
    'LIST_NOT_FOUND',
    `recipient list ${campaign.template.listId} does not exist for account ${campaign.accountId}`,
    { field: 'template.listId' },
  );
}

/**
 * The firing a retried run answers: the first try's, if it was this
 * campaign's and fired. A missed one is refused again as it was the first
 * time; another campaign's is a key reused for another request.
 */
function answeredBefore(campaign: Campaign, earlier: CampaignFiring): CampaignFiring {
  if (earlier.campaignId !== campaign.id) {
    throw new HeraldError(
      ErrorCodes.IDEMPOTENCY_KEY_REUSED,
      `this Idempotency-Key was used to run another campaign (campaign ${earlier.campaignId})`,
      { details: { field: 'Idempotency-Key', campaignId: earlier.campaignId } },
    );
  }
  if (earlier.outcome !== 'fired') throw missedRun(campaign, earlier);
  return earlier;
}

/**
 * A run that lost a race after the checks (the list deleted, the quota
 * filled meanwhile): recorded missed, and answered as the same refusal the
 * checks give, with the recorded reason.
 */
function missedRun(campaign: Campaign, firing: CampaignFiring): HeraldError {
  if (firing.reason === 'list_not_found') return listGone(campaign);
  return new AccountQuotaError(campaign.accountId, `the run was refused by the quotas (${String(firing.reason)})`, {
    reason: firing.reason,
  });
}
