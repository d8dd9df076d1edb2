import { isDeepStrictEqual } from 'node:util';
import { ErrorCodes, HeraldError } from '@herald/core';
import {
  checkTemplate,
  checkTimeZone,
  type Campaign,
  type CampaignTemplate,
  type NoResend,
} from '@herald/core/campaign';
import type { PriorityClass } from '@herald/core/task';
import type { RequestContent } from './request-content';

/** What a repeated POST /api/v1/campaigns must match to be answered with the campaign its first try created. */
export interface CampaignRequestShape {
  name: string;
  cron: string;
  timeZone: string;
  enabled?: boolean;
  template: {
    listId: string;
    content: RequestContent;
    priority?: PriorityClass;
    ttlSeconds?: number;
    targeting?: string;
    noResend?: NoResend;
    collapseKey?: string;
    canary?: unknown;
    variants?: unknown;
    holdout?: unknown;
  };
}

/**
 * Refuses a key used before for another campaign request (409
 * IDEMPOTENCY_KEY_REUSED naming the header and the campaign), as tasks do:
 * the same account (the key is scoped by it), name, schedule, initial
 * enabled state and template. The time zone is compared in its canonical
 * spelling, as the campaign stores it.
 */
export function assertSameCampaignRequest(existing: Campaign, request: CampaignRequestShape): void {
  const t = existing.template;
  const r = request.template;
  const same =
    existing.name === request.name &&
    existing.cron === request.cron &&
    existing.timeZone === checkTimeZone(request.timeZone) &&
    (request.enabled === undefined || existing.enabled === request.enabled) &&
    t.listId === r.listId &&
    t.content.body === r.content.body &&
    t.content.title === r.content.title &&
    (t.content.template === true) === (r.content.template === true) &&
    t.priority === (r.priority ?? 'normal') &&
    t.ttlSeconds === r.ttlSeconds &&
    t.targeting === r.targeting &&
    sameNoResend(t.noResend, r.noResend) &&
    sameRollout(t, r);
  if (!same) {
    throw new HeraldError(
      ErrorCodes.IDEMPOTENCY_KEY_REUSED,
      `this Idempotency-Key was used for another request (campaign ${existing.id})`,
      { details: { field: 'Idempotency-Key', campaignId: existing.id } },
    );
  }
}

const windowOf = (noResend: NoResend | undefined) => (noResend?.scope === 'window' ? noResend.window : undefined);

function sameNoResend(a: NoResend | undefined, b: NoResend | undefined): boolean {
  return a?.scope === b?.scope && windowOf(a) === windowOf(b);
}

const rolloutOf = (t: Pick<CampaignTemplate, 'collapseKey' | 'canary' | 'variants' | 'holdout'>) => ({
  collapseKey: t.collapseKey,
  canary: t.canary,
  variants: t.variants,
  holdout: t.holdout,
});

/**
 * The collapse key, canary and variants: the request's parsed as the template
 * stores them (a zero holdout dropped), then compared by value, since a JSON
 * column may give the keys back in another order.
 */
function sameRollout(stored: CampaignTemplate, request: CampaignRequestShape['template']): boolean {
  const asked = checkTemplate({ ...request, priority: request.priority ?? 'normal' });
  return isDeepStrictEqual(rolloutOf(stored), rolloutOf(asked));
}
