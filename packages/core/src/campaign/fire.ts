/*
 * One firing of a campaign: its task made from the template, handed to a
 * scheduler, and recorded in the firing history. The controller's cron pass
 * fires scheduled times through it, and the API's "run now" fires an
 * operator's manual run through it too, so both take the same quotas, apply
 * the same no-resend scope and leave the same kind of record.
 */
import { reserveBroadcast } from '../account-quota/reserve';
import type { AccountsConfig } from '../config/options';
import type { AccountStore } from '../ports/account-store';
import type { CampaignStore } from '../ports/campaign-store';
import type { Logger } from '../ports/observability';
import type { TaskStore } from '../ports/task-store';
import { contentCrc } from '../task/content';
import type { Task } from '../task/model';
import { renderFiringVariables } from '../template/firing';
import { firingValues } from './firing-values';
import { campaignTaskKey } from './misfire';
import type { Campaign, CampaignFiring } from './model';
import { noResendSince } from './no-resend';
import { templateTaskFields } from './template';

/** What firing a campaign needs. */
export interface CampaignFiringDeps {
  campaigns: CampaignStore;
  store: TaskStore;
  logger: Logger;
  /**
   * Hands a created task to its scheduler (task.submitted). Optional: without
   * it (or when it fails) the scheduler's recovery sweep adopts the task.
   */
  submit?: (taskId: number) => Promise<void>;
  /**
   * B-side controls (docs/account-quotas.md): a firing is its account's
   * broadcast, so it takes room in the account's quotas like a task created
   * through the API; refused, it is recorded missed with reason
   * `quota_exceeded:<limit>`. Without it campaigns have no quotas.
   */
  quota?: { accounts: AccountStore; policy: AccountsConfig };
}

export interface CampaignFiringOptions {
  /** The lifetime of a firing's task when its template names no ttlSeconds (tasks.defaultTtlMs). */
  defaultTtlMs: number;
  /** An operator's run outside the schedule: recorded with `manual: true`. */
  manual?: boolean;
  /** The run's Idempotency-Key, kept beside its firing (NewCampaignFiring.runKey) so a retry finds it. */
  runKey?: string;
}

/**
 * Fires `campaign` for `scheduledAt` unless that time is already recorded:
 * creates its task with idempotency key campaign:<id>:<scheduledAt> (a retry
 * gets the same task), hands it to the scheduler, records it fired; or
 * records it missed with the reason there is no task ('list_not_found',
 * 'quota_exceeded:<limit>'). Answers the stored record: the first record of
 * a time wins, so redoing this after a crash changes nothing.
 */
export async function fireCampaign(
  deps: CampaignFiringDeps,
  campaign: Campaign,
  scheduledAt: number,
  now: number,
  options: CampaignFiringOptions,
): Promise<CampaignFiring> {
  const recorded = await deps.campaigns.getFiring(campaign.id, scheduledAt);
  if (recorded !== undefined) return recorded;
  // A manual run's marker and its run key ride on its record, fired or missed.
  const marks = {
    ...(options.manual === true ? { manual: true } : {}),
    ...(options.runKey === undefined ? {} : { runKey: options.runKey }),
  };
  const key = campaignTaskKey(campaign.id, scheduledAt);
  const task =
    (await deps.store.getTaskByIdempotencyKey(key)) ??
    (await createFiringTask(deps, options, campaign, scheduledAt, key, now));
  if (typeof task === 'string') {
    return deps.campaigns.recordFiring({
      campaignId: campaign.id,
      scheduledAt,
      outcome: 'missed',
      reason: task,
      at: now,
      ...marks,
    });
  }
  if (deps.submit !== undefined) {
    // The task is persisted: a lost hand-over only delays it until the scheduler's sweep.
    await deps.submit(task.id).catch((error: unknown) =>
      deps.logger.warn('task.submitted for a campaign task failed; the scheduler sweep will adopt it', {
        taskId: task.id,
        error: String(error),
      }),
    );
  }
  return deps.campaigns.recordFiring({
    campaignId: campaign.id,
    scheduledAt,
    outcome: 'fired',
    taskId: task.id,
    at: now,
    ...marks,
  });
}

/**
 * The time a manual run at `now` is recorded under. Schedule times fall on
 * whole seconds, so a run off a whole second can never take the identity
 * (campaign, scheduled time) of a time the schedule fires; one asked for on
 * a whole second moves a millisecond later.
 */
export function manualRunTime(now: number): number {
  return now % 1000 === 0 ? now + 1 : now;
}

/**
 * The firing's task, from the template; or why there is none: 'list_not_found'
 * (the template's list is gone, or not the account's), 'quota_exceeded:<limit>'.
 */
async function createFiringTask(
  deps: CampaignFiringDeps,
  options: CampaignFiringOptions,
  campaign: Campaign,
  scheduledAt: number,
  key: string,
  now: number,
): Promise<Task | string> {
  const { template } = campaign;
  const list = await deps.store.getList(template.listId);
  if (list === undefined || list.accountId !== campaign.accountId) return 'list_not_found';
  const ttlMs = template.ttlSeconds === undefined ? options.defaultTtlMs : template.ttlSeconds * 1000;
  if (deps.quota !== undefined) {
    // Keyed like the task: a controller that died between the two steps is answered on its next pass, not counted again.
    const reserved = await reserveBroadcast(deps.quota.accounts, deps.quota.policy, {
      accountId: campaign.accountId,
      key,
      sendAt: scheduledAt,
      recipients: list.count,
      at: now,
    });
    if (!reserved.admitted) return `quota_exceeded:${reserved.refusal.limit}`;
  }
  // Filled once per firing: a `{{firing.date}}` content is new content every day.
  const values = firingValues(campaign.id, scheduledAt, campaign.timeZone);
  const content = renderFiringVariables(template.content, values);
  const since = noResendSince(template.noResend, scheduledAt, campaign.timeZone);
  return deps.store
    .createTask(
      {
        accountId: campaign.accountId,
        listId: list.id,
        content,
        contentCrc: contentCrc(content),
        priority: template.priority,
        sendAt: scheduledAt,
        expiresAt: scheduledAt + ttlMs,
        listCount: list.count,
        idempotencyKey: key,
        ...(template.targeting === undefined ? {} : { targeting: template.targeting }),
        ...(since === undefined ? {} : { noResendSince: since }),
        // Local time, quiet hours, collapse key, canary and variants: as a task request would carry them.
        ...templateTaskFields(template, values, key),
      },
      now,
    )
    .catch(async (error: unknown) => {
      await releaseQuota(deps, campaign.accountId, key);
      throw error;
    });
}

/** Gives a firing's room back when its task was not created (unless another controller created it meanwhile); never throws. */
async function releaseQuota(deps: CampaignFiringDeps, accountId: string, key: string): Promise<void> {
  try {
    if (deps.quota === undefined || (await deps.store.getTaskByIdempotencyKey(key)) !== undefined) return;
    await deps.quota.accounts.release(accountId, key);
  } catch (error) {
    deps.logger.warn('a campaign firing kept its quota reservation; it counts until its day is over', {
      accountId,
      key,
      error: String(error),
    });
  }
}
