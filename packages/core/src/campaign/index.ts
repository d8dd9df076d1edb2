/**
 * @module @herald/core/campaign
 *
 * Cron campaigns (docs/campaigns.md): `parseCron` and `checkTimeZone` validate,
 * `nextFireTimes(campaign, after, n)` gives fire times in the campaign's zone,
 * `planFirings(...)` is the misfire policy, and the records a `CampaignStore` keeps.
 *
 * @example
 *   import { nextFireTimes } from '@herald/core/campaign';
 *   const [next] = nextFireTimes({ cron: '0 9 * * 1', timeZone: 'Europe/Paris' }, Date.now(), 1);
 */
export { parseCron, MAX_CRON_CHARS } from './cron';
export type { CronSchedule, CronField } from './cron';
export { checkTimeZone, wallClockAt, offsetAt, MAX_TIME_ZONE_CHARS } from './time-zone';
export type { WallClock } from './time-zone';
export { compileSchedule, nextFireTimes, instantOfWallClock, MAX_FIRE_TIMES, MAX_FIRE_INSTANT } from './fire-times';
export { NO_RESEND_SCOPES, MAX_NO_RESEND_WINDOW, checkNoResend, parseNoResendWindow, noResendSince } from './no-resend';
export type { NoResend, NoResendScope, NoResendWindow } from './no-resend';
export { firingValues } from './firing-values';
export { templateTaskFields, seedOf } from './template';
export type { QuietHoursRequest, TemplateTaskFields } from './template';
export { fireCampaign, manualRunTime } from './fire';
export type { CampaignFiringDeps, CampaignFiringOptions } from './fire';
export { firingNote } from './firing-note';
export type { FiringNote } from './firing-note';
export type { ScheduleSpec, FireSchedule } from './fire-times';
export { planFirings, campaignTaskKey, MISFIRE_BATCH } from './misfire';
export { checkCampaignPeriod, smallestGap, projectedDailyReach } from './period';
export type { SmallestGap, ProjectedDailyReach } from './period';
export type { MisfireInput, FiringPlan } from './misfire';
export {
  FIRING_OUTCOMES,
  CAMPAIGN_QUERY_DEFAULT_LIMIT,
  CAMPAIGN_QUERY_MAX_LIMIT,
  MAX_CAMPAIGN_NAME_CHARS,
  MAX_CAMPAIGN_ID_CHARS,
  checkCampaignId,
  checkCampaignTime,
  checkTemplate,
  newCampaignRecord,
  applyCampaignPatch,
  compileCampaignQuery,
  campaignMatchesSearch,
  compileFiringQuery,
  newFiringRecord,
  checkAdvance,
  campaignNotFound,
} from './model';
export type {
  Campaign,
  NewCampaign,
  CampaignPatch,
  CampaignTemplate,
  CampaignFiring,
  NewCampaignFiring,
  FiringOutcome,
  CampaignQuery,
  CampaignPage,
  FiringQuery,
  FiringPage,
  CompiledCampaignQuery,
  CompiledFiringQuery,
} from './model';
