import type { AccountUsage } from '../account-quota/admit';
import type { AccountDay } from '../account-quota/day';
import type { AccountLimits } from '../account-quota/limits';
import type {
  AccountSettings,
  AccountSettingsPatch,
  BroadcastReservation,
  ReserveResult,
} from '../account-quota/records';

/**
 * The account store: each account's B-side settings (limit overrides, the
 * last click-through rate) and the broadcasts reserved against its quotas
 * (docs/account-quotas.md). It owns its connection; callers see only these
 * methods.
 *
 * Contract, checked by the AccountStore conformance suite
 * (packages/testing/src/account-store) for every adapter:
 * - `updateSettings` applies core's applySettingsPatch (a bad field fails
 *   VALIDATION_FAILED naming it and changes nothing) atomically per account:
 *   two patches of different fields both stand. `getSettings` answers
 *   undefined for an account never set.
 * - `reserve` is atomic per account: it reads the account's usage for `day`
 *   (broadcasts whose send time falls in [day.from, day.to)) and its nearest
 *   reserved send times around `reservation.sendAt`, decides with core's
 *   decideReservation, and records the reservation only when admitted, all
 *   as one step. Of concurrent reservations, however many processes make
 *   them, never more are admitted than the limits allow.
 * - Reservations are idempotent by (accountId, key): a second reserve with a
 *   stored key answers `repeated` and counts nothing, whatever its other fields.
 * - `release` removes one reservation (a task that was not created after
 *   all) and answers whether it existed; a released key may be reserved again.
 * - Reservations whose send time is more than RESERVATION_RETENTION_MS before
 *   a later reservation's `at` may be forgotten.
 * - Inputs are checked (checkReservation, checkAccountId): bad input fails
 *   VALIDATION_FAILED and changes nothing. Times are passed in; adapters
 *   never read a clock. After `close`, every call fails with STORE_CLOSED.
 */
export interface AccountStore {
  getSettings(accountId: string): Promise<AccountSettings | undefined>;
  updateSettings(accountId: string, patch: AccountSettingsPatch, now: number): Promise<AccountSettings>;
  /** Checks and records one broadcast in one step; `day` is the local day of its send time. */
  reserve(reservation: BroadcastReservation, limits: AccountLimits, day: AccountDay): Promise<ReserveResult>;
  release(accountId: string, key: string): Promise<boolean>;
  /** The account's usage of `day`, and its reserved send times nearest to `around` (at or before, at or after). */
  usage(accountId: string, day: AccountDay, around: number): Promise<AccountUsage>;
  close(): Promise<void>;
}
