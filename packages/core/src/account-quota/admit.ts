import type { AccountDay } from './day';
import type { AccountLimits, LimitName } from './limits';

/**
 * What an account has reserved, as a reservation is decided: the day of the
 * request's send time, and the account's broadcasts nearest to it.
 */
export interface AccountUsage {
  /** Broadcasts reserved whose send time falls in the day. */
  readonly broadcasts: number;
  /** Their recipients, summed. */
  readonly recipients: number;
  /** The latest reserved send time at or before the instant asked about; null: none kept. */
  readonly previousSendAt: number | null;
  /** The earliest reserved send time at or after it; null: none. */
  readonly nextSendAt: number | null;
}

/** One broadcast asking for room: when it sends and to how many recipients. */
export interface QuotaRequest {
  readonly sendAt: number;
  readonly recipients: number;
}

/**
 * Why a broadcast is refused (ACCOUNT_QUOTA_EXCEEDED). `field` is the request
 * field to change (a later `sendAt`, a smaller list); `retryAt`, when a send
 * time can help, is the earliest one this limit would not refuse (another
 * limit, or another broadcast, may still stand in the way).
 */
export interface QuotaRefusal {
  readonly limit: LimitName;
  readonly field: 'sendAt' | 'listId' | 'speed';
  readonly message: string;
  /** The limit in force. */
  readonly max: number;
  /** Daily limits: what the day already holds. minIntervalMs: the gap to the nearest broadcast, ms. maxSpeed: 0. */
  readonly used: number;
  /** Daily limits: what this broadcast would add. maxSpeed: the speed asked for. */
  readonly requested?: number;
  /** minIntervalMs: the send time of the broadcast too close to this one. */
  readonly nearestSendAt?: number;
  readonly retryAt?: number;
}

export type Admission = { readonly ok: true } | { readonly ok: false; readonly refusal: QuotaRefusal };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The decision, pure: does a broadcast of `request` fit the account's `limits`
 * given its `usage`? Checked in this order, the first failure answering:
 * the day's broadcasts, the day's recipients, then the least interval to the
 * broadcasts before and after it (across day boundaries too).
 */
export function admit(limits: AccountLimits, usage: AccountUsage, request: QuotaRequest, day: AccountDay): Admission {
  if (usage.broadcasts + 1 > limits.dailyBroadcasts) {
    return refuse({
      limit: 'dailyBroadcasts',
      field: 'sendAt',
      message: `the account's daily quota of ${limits.dailyBroadcasts} broadcasts is used up for the day of the send time (${usage.broadcasts} from ${iso(day.from)}); a send time from ${iso(day.to)} on counts on the next day`,
      max: limits.dailyBroadcasts,
      used: usage.broadcasts,
      requested: 1,
      retryAt: day.to,
    });
  }
  if (usage.recipients + request.recipients > limits.dailyRecipients) {
    const never = request.recipients > limits.dailyRecipients;
    return refuse({
      limit: 'dailyRecipients',
      field: 'listId',
      message: never
        ? `the list's ${request.recipients} recipients exceed the account's daily quota of ${limits.dailyRecipients} recipients on any day`
        : `the list's ${request.recipients} recipients do not fit the account's daily quota of ${limits.dailyRecipients} recipients (${usage.recipients} used for the day from ${iso(day.from)}); a send time from ${iso(day.to)} on counts on the next day`,
      max: limits.dailyRecipients,
      used: usage.recipients,
      requested: request.recipients,
      ...(never ? {} : { retryAt: day.to }),
    });
  }
  const min = limits.minIntervalMs;
  if (min > 0) {
    const tooClose = (other: number | null) => other !== null && Math.abs(request.sendAt - other) < min;
    // The broadcast before first: moving later clears it, and it is the one most often in the way.
    const nearest = tooClose(usage.previousSendAt)
      ? usage.previousSendAt!
      : tooClose(usage.nextSendAt)
        ? usage.nextSendAt!
        : undefined;
    if (nearest !== undefined) {
      return refuse({
        limit: 'minIntervalMs',
        field: 'sendAt',
        message: `the account may broadcast at most once every ${min} ms: another of its broadcasts sends at ${iso(nearest)}, ${Math.abs(request.sendAt - nearest)} ms from this one; send from ${iso(nearest + min)} on`,
        max: min,
        used: Math.abs(request.sendAt - nearest),
        nearestSendAt: nearest,
        retryAt: nearest + min,
      });
    }
  }
  return { ok: true };
}

function refuse(refusal: QuotaRefusal): Admission {
  return { ok: false, refusal };
}
