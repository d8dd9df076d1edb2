/**
 * @module @herald/core/account-quota
 *
 * B-side controls (docs/account-quotas.md): an account's daily quotas and frequency, scaled
 * by its last click-through rate; `admit` decides one broadcast against them, and
 * `reserveBroadcast(store, config.accounts, reservation)` checks and records it.
 *
 * @example
 *   import { reserveBroadcast } from '@herald/core/account-quota';
 *   const result = await reserveBroadcast(accountStore, config.accounts, reservation);
 */
export {
  LIMIT_NAMES,
  LIMIT_MAX,
  CONFIRMATION_LIMIT_NAMES,
  CONFIRMATION_LIMIT_MAX,
  OVERRIDABLE_LIMIT_NAMES,
  checkLimitValue,
  checkLimitsOverride,
  checkClickThroughRate,
  clickThroughFactor,
  baseLimits,
  scaleLimits,
  limitsInForce,
} from './limits';
export type {
  AccountLimits,
  AccountLimitsOverride,
  ClickThroughPolicy,
  ConfirmationLimits,
  DefaultLimits,
  LimitName,
  LimitsInForce,
} from './limits';
export { confirmationLimits, needsConfirmation, assertConfirmed, ConfirmationRequiredError } from './confirmation';
export type { ReachOfBroadcast } from './confirmation';
export { accountDayOf, checkAccountDay } from './day';
export type { AccountDay } from './day';
export { admit } from './admit';
export { speedRefusal } from './speed';
export type { AccountUsage, QuotaRequest, QuotaRefusal, Admission } from './admit';
export {
  MAX_ACCOUNT_ID_CHARS,
  MAX_RESERVATION_KEY_CHARS,
  RESERVATION_RETENTION_MS,
  checkAccountId,
  checkReservationKey,
  checkQuotaTime,
  checkReservation,
  applySettingsPatch,
  checkAccountLocalTime,
  decideReservation,
  quotaExceeded,
} from './records';
export type {
  AccountSettings,
  AccountSettingsPatch,
  AccountLocalTime,
  BroadcastReservation,
  ReserveResult,
} from './records';
export { reserveBroadcast, checkBroadcast, accountConfirmation, describeAccountLimits } from './reserve';
export type { AccountLimitsView } from './reserve';
