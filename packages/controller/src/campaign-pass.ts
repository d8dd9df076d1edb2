import {
  campaignTaskKey,
  fireCampaign,
  nextFireTimes,
  planFirings,
  type Campaign,
  type CampaignFiring,
  type CampaignFiringDeps,
} from '@herald/core/campaign';
import type { Counter } from '@herald/core/ports';

/**
 * What a campaign pass needs (docs/campaigns.md, "Firing and failover"): what
 * firing a campaign needs (core's fireCampaign: stores, hand-over, quotas),
 * and the pass's own metrics and leadership.
 */
export interface CampaignPassDeps extends CampaignFiringDeps {
  /** herald_controller_campaign_firings_total{outcome}. */
  firings: Counter;
  /** Whether this controller still leads; a pass stops early when it no longer does. */
  isLeader: () => boolean;
}

export interface CampaignPassOptions {
  /** campaigns.misfireGraceMs. */
  misfireGraceMs: number;
  /** The lifetime of a firing's task when its template names no ttlSeconds (tasks.defaultTtlMs). */
  defaultTtlMs: number;
  /** Campaigns read per page. Default 500. */
  pageSize?: number;
}

export interface CampaignPassResult {
  fired: number;
  missed: number;
  /** The earliest next fire time over the enabled campaigns, after now; undefined when none fires again. */
  nextDueAt: number | undefined;
  /** Every enabled campaign seen, for the wake-ups. */
  campaigns: Campaign[];
}

/**
 * One campaign pass at `now`: for every enabled campaign, the pure misfire
 * policy (core planFirings) says which scheduled times to fire and which to
 * record as missed; this carries the plan out in an order that a crash
 * between any two steps, and a second controller taking over, can neither
 * double-fire nor skip:
 *
 *   1. each missed time: record it (missed, or fired if a task with its key
 *      exists: a previous leader created it and died before recording);
 *   2. the time to fire: unless already recorded, create its task with
 *      idempotency key campaign:<id>:<scheduledAt> (a retry gets the same
 *      task), hand it to the scheduler, record it fired;
 *   3. advance lastScheduledAt from the value read to the plan's last time
 *      (compare-and-set: if another controller moved it, stop here; its
 *      records stand, and ours were the same records).
 *
 * Recording is idempotent on (campaign, scheduled time) with the first record
 * winning, and task creation is idempotent on its key, so redoing any prefix
 * of these steps changes nothing.
 */
export async function runCampaignPass(
  deps: CampaignPassDeps,
  options: CampaignPassOptions,
  now: number,
): Promise<CampaignPassResult> {
  const result: CampaignPassResult = { fired: 0, missed: 0, nextDueAt: undefined, campaigns: [] };
  let afterId = 0;
  for (;;) {
    const page = await deps.campaigns.listCampaigns({ enabled: true, afterId, limit: options.pageSize ?? 500 });
    for (const campaign of page.campaigns) {
      if (!deps.isLeader()) return result;
      result.campaigns.push(campaign);
      try {
        const last = await handleCampaign(deps, options, campaign, now, result);
        const next = nextDue(campaign, last, now);
        if (next !== undefined && (result.nextDueAt === undefined || next < result.nextDueAt)) result.nextDueAt = next;
      } catch (error) {
        // One campaign's failure (its store row, a bad template) must not hold up the others.
        deps.logger.warn('campaign pass failed for a campaign; retrying next pass', {
          campaignId: campaign.id,
          error: String(error),
        });
      }
    }
    if (page.nextCursor === null) return result;
    afterId = page.nextCursor;
  }
}

/** Plans and carries out one campaign's due times; returns its lastScheduledAt afterwards. */
async function handleCampaign(
  deps: CampaignPassDeps,
  options: CampaignPassOptions,
  campaign: Campaign,
  now: number,
  result: CampaignPassResult,
): Promise<number | undefined> {
  let last = campaign.lastScheduledAt;
  for (;;) {
    const plan = planFirings({
      schedule: campaign,
      lastScheduledAt: last,
      activeFrom: campaign.activeFrom,
      now,
      graceMs: options.misfireGraceMs,
    });
    if (plan.advanceTo === undefined) return last;
    for (const scheduledAt of plan.missed) {
      const recorded = await recordLate(deps, campaign, scheduledAt, now);
      count(deps, result, recorded);
    }
    if (plan.fire !== undefined)
      count(deps, result, await fireCampaign(deps, campaign, plan.fire, now, { defaultTtlMs: options.defaultTtlMs }));
    if (!(await deps.campaigns.advanceLastScheduled(campaign.id, last ?? null, plan.advanceTo))) {
      deps.logger.info('campaign schedule moved by another controller', { campaignId: campaign.id });
      return plan.advanceTo;
    }
    last = plan.advanceTo;
    if (!plan.more || !deps.isLeader()) return last;
  }
}

/** A due time beyond the grace: missed, unless a task with its key exists (created by a leader that died before recording). */
async function recordLate(
  deps: CampaignPassDeps,
  campaign: Campaign,
  scheduledAt: number,
  now: number,
): Promise<CampaignFiring> {
  const task = await deps.store.getTaskByIdempotencyKey(campaignTaskKey(campaign.id, scheduledAt));
  if (task !== undefined)
    return deps.campaigns.recordFiring({
      campaignId: campaign.id,
      scheduledAt,
      outcome: 'fired',
      taskId: task.id,
      at: now,
    });
  return deps.campaigns.recordFiring({
    campaignId: campaign.id,
    scheduledAt,
    outcome: 'missed',
    reason: 'late',
    at: now,
  });
}

function count(deps: CampaignPassDeps, result: CampaignPassResult, firing: CampaignFiring): void {
  if (firing.outcome === 'fired') result.fired++;
  else result.missed++;
  deps.firings.inc({ outcome: firing.outcome });
}

/** The campaign's next fire time after both its baseline and now. */
function nextDue(campaign: Campaign, last: number | undefined, now: number): number | undefined {
  const from = Math.max(last ?? 0, campaign.activeFrom, now);
  return nextFireTimes(campaign, from, 1)[0];
}
