import type { AccountsConfig } from '../config/options';
import type { AccountStore } from '../ports/account-store';
import { accountDayOf } from './day';
import { limitsInForce, type AccountLimits, type AccountLimitsOverride, type ConfirmationLimits } from './limits';
import type { AccountSettings, BroadcastReservation, ReserveResult } from './records';
import { admit, type Admission, type AccountUsage } from './admit';
import { confirmationLimits } from './confirmation';
import { speedRefusal } from './speed';

/** What a refusal decided before the store was asked reports as usage: nothing was read. */
const NO_USAGE: AccountUsage = { broadcasts: 0, recipients: 0, previousSendAt: null, nextSendAt: null };

/**
 * The one way a broadcast takes room in its account's quotas, for the API's
 * task creation and for campaign firings alike: the limits in force now
 * (defaults, the account's override, its last click-through rate), the local
 * day of the send time, then the store's atomic reserve.
 */
export async function reserveBroadcast(
  store: AccountStore,
  policy: AccountsConfig,
  reservation: BroadcastReservation,
): Promise<ReserveResult> {
  const settings = await store.getSettings(reservation.accountId);
  const { limits } = inForce(policy, settings);
  // A speed the account may not ask for refuses the broadcast before anything is reserved.
  const refusal = speedRefusal(limits, reservation.speed);
  if (refusal !== undefined) return { admitted: false, refusal, usage: NO_USAGE };
  return store.reserve(reservation, limits, accountDayOf(policy.utcOffsetMinutes, reservation.sendAt));
}

/**
 * What reserveBroadcast would decide, reserving nothing (a dry run): the same
 * limits in force, speed rule and admission, on the account's usage now.
 * Unlike reserve it is not atomic with anything: a later create may still be
 * refused by a broadcast reserved in between.
 */
export async function checkBroadcast(
  store: AccountStore,
  policy: AccountsConfig,
  reservation: BroadcastReservation,
): Promise<Admission> {
  const settings = await store.getSettings(reservation.accountId);
  const { limits } = inForce(policy, settings);
  const refusal = speedRefusal(limits, reservation.speed);
  if (refusal !== undefined) return { ok: false, refusal };
  const day = accountDayOf(policy.utcOffsetMinutes, reservation.sendAt);
  return admit(limits, await store.usage(reservation.accountId, day, reservation.sendAt), reservation, day);
}

/** The account's confirmation rule (docs/account-quotas.md, "Confirmation"); the configured one without a store. */
export async function accountConfirmation(
  store: AccountStore | undefined,
  policy: AccountsConfig,
  accountId: string,
): Promise<ConfirmationLimits> {
  const settings = store === undefined ? undefined : await store.getSettings(accountId);
  return confirmationLimits(policy.defaultLimits, settings?.limits ?? {});
}

/** An account's B-side limits as GET /api/v1/accounts/:id/limits answers them. */
export interface AccountLimitsView {
  accountId: string;
  /** What the next broadcast is decided by. */
  limits: AccountLimits;
  /** The defaults with the override applied, before the click-through factor. */
  base: AccountLimits;
  /** The account's own limits ({} none). */
  override: AccountLimitsOverride;
  /** When a broadcast needs `"confirm": <recipients>`: the override over the defaults, never scaled. */
  confirmation: ConfirmationLimits;
  clickThroughRate: number | null;
  /** clamp(rate / referenceRate, minFactor, maxFactor); 1 with no rate. */
  factor: number;
  /** Broadcasts reserved to send today (the local day of now), and their recipients. */
  usage: { broadcasts: number; recipients: number };
  /** Today's start, and the next day's: when the daily quotas start again. */
  dayStartsAt: number;
  nextResetAt: number;
  /** The latest reserved send time at or before now, and the earliest at or after it (null: none). */
  lastBroadcastAt: number | null;
  nextBroadcastAt: number | null;
  /** When an admin last changed the settings; null: never. */
  updatedAt: number | null;
}

export async function describeAccountLimits(
  store: AccountStore,
  policy: AccountsConfig,
  accountId: string,
  now: number,
): Promise<AccountLimitsView> {
  const settings = await store.getSettings(accountId);
  const day = accountDayOf(policy.utcOffsetMinutes, now);
  const usage = await store.usage(accountId, day, now);
  const { limits, base, factor } = inForce(policy, settings);
  return {
    accountId,
    limits,
    base,
    override: settings?.limits ?? {},
    confirmation: confirmationLimits(policy.defaultLimits, settings?.limits ?? {}),
    clickThroughRate: settings?.clickThroughRate ?? null,
    factor,
    usage: { broadcasts: usage.broadcasts, recipients: usage.recipients },
    dayStartsAt: day.from,
    nextResetAt: day.to,
    lastBroadcastAt: usage.previousSendAt,
    nextBroadcastAt: usage.nextSendAt,
    updatedAt: settings?.updatedAt ?? null,
  };
}

function inForce(policy: AccountsConfig, settings: AccountSettings | undefined) {
  return limitsInForce(
    policy.defaultLimits,
    settings?.limits ?? {},
    policy.clickThrough,
    settings?.clickThroughRate ?? null,
  );
}
