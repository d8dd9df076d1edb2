import { randomUUID } from 'node:crypto';
import {
  checkBroadcast,
  limitsInForce,
  quotaExceeded,
  reserveBroadcast,
  speedRefusal,
} from '@herald/core/account-quota';
import type { ApiDeps } from '../api-deps';

/** What a broadcast asks of its account's quotas. */
export interface QuotaBroadcast {
  accountId: string;
  idempotencyKey: string | undefined;
  sendAt: number;
  recipients: number;
  speed: number | undefined;
}

/** A broadcast's room in its account's quotas, taken before its task is created. */
export interface QuotaHold {
  /** Gives the room back: the task was not created after all. Never throws (the creation's own error is what the caller reports). */
  release(): Promise<void>;
}

const NOTHING_HELD: QuotaHold = { release: async () => undefined };

/**
 * Takes room for one broadcast in its account's quotas (docs/account-quotas.md),
 * or refuses it with ACCOUNT_QUOTA_EXCEEDED (422) before anything is created.
 * Without an account store (ApiDeps.accounts) there are no quotas; a task's
 * speed is still decided by accounts.defaultLimits.maxSpeed.
 *
 * The reservation is keyed by the task's idempotency key, so a retry of a
 * request whose task was never created (it failed, or the process died
 * between the two steps) is answered by its first reservation instead of
 * counted again; without a key, by a one-off id.
 */
export async function holdQuota(deps: ApiDeps, broadcast: QuotaBroadcast, now: number): Promise<QuotaHold> {
  const accounts = deps.accounts;
  if (accounts === undefined) {
    checkSpeedWithoutStore(deps, broadcast);
    return NOTHING_HELD;
  }
  const key = broadcast.idempotencyKey ?? `once:${randomUUID()}`;
  const result = await reserveBroadcast(accounts, deps.config.accounts, {
    accountId: broadcast.accountId,
    key,
    sendAt: broadcast.sendAt,
    recipients: broadcast.recipients,
    at: now,
    ...(broadcast.speed === undefined ? {} : { speed: broadcast.speed }),
  });
  if (!result.admitted) throw quotaExceeded(broadcast.accountId, result.refusal);
  return {
    async release() {
      try {
        // A concurrent request with the same key may have created the task meanwhile: its room stays taken.
        if (
          broadcast.idempotencyKey !== undefined &&
          (await deps.store.getTaskByIdempotencyKey(broadcast.idempotencyKey)) !== undefined
        )
          return;
        await accounts.release(broadcast.accountId, key);
      } catch (error) {
        deps.logger.warn('a quota reservation was not released; it counts until its day is over', {
          accountId: broadcast.accountId,
          key,
          error: String(error),
        });
      }
    },
  };
}

/**
 * What holdQuota would decide, holding nothing (a dry run): the same
 * ACCOUNT_QUOTA_EXCEEDED when the broadcast would be refused now.
 */
export async function checkQuota(deps: ApiDeps, broadcast: QuotaBroadcast, now: number): Promise<void> {
  const accounts = deps.accounts;
  if (accounts === undefined) return checkSpeedWithoutStore(deps, broadcast);
  const admission = await checkBroadcast(accounts, deps.config.accounts, {
    accountId: broadcast.accountId,
    key: 'dry-run',
    sendAt: broadcast.sendAt,
    recipients: broadcast.recipients,
    at: now,
    ...(broadcast.speed === undefined ? {} : { speed: broadcast.speed }),
  });
  if (!admission.ok) throw quotaExceeded(broadcast.accountId, admission.refusal);
}

/** No quotas without a store, but who may set a speed still follows accounts.defaultLimits.maxSpeed. */
function checkSpeedWithoutStore(deps: ApiDeps, broadcast: QuotaBroadcast): void {
  const { limits } = limitsInForce(deps.config.accounts.defaultLimits, {}, deps.config.accounts.clickThrough, null);
  const refusal = speedRefusal(limits, broadcast.speed);
  if (refusal !== undefined) throw quotaExceeded(broadcast.accountId, refusal);
}
