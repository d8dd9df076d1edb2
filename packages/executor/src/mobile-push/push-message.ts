import type { Delivery } from '@herald/core/ports';

/**
 * The key of a batch, as the webhook's Idempotency-Key spells it:
 * `<taskId>:<P|L>:<first uin>:<last uin>:<count>` (P pushed online, L at login).
 * Each push carries it with its uin, so a receiver can deduplicate on (taskId, uin).
 */
export function batchKey(delivery: Delivery): string {
  const { uins } = delivery;
  return `${delivery.taskId}:${delivery.atLogin ? 'L' : 'P'}:${uins[0]}:${uins[uins.length - 1]}:${uins.length}`;
}

/**
 * What a device may collapse on: the task's collapse key, else the task id,
 * so that a message sent twice (a batch tried again) shows once. At most 64
 * bytes (APNs' limit for apns-collapse-id).
 */
export function collapseIdOf(delivery: Delivery): string {
  return (delivery.collapseKey ?? `herald-task-${delivery.taskId}`).slice(0, 64);
}

/** Seconds a push service should keep an undelivered message: until the task expires; undefined without an expiry. */
export function ttlSecondsOf(delivery: Delivery, now: number): number | undefined {
  if (delivery.expiresAt === undefined) return undefined;
  return Math.max(0, Math.floor((delivery.expiresAt - now) / 1000));
}

/** The string fields every push carries for the app (FCM `data`, an APNs payload's `herald`). */
export function heraldFields(delivery: Delivery, uin: number, key: string): Record<string, string> {
  return {
    taskId: String(delivery.taskId),
    uin: String(uin),
    atLogin: String(delivery.atLogin),
    batch: key,
    ...(delivery.displayAt === undefined ? {} : { displayAt: String(delivery.displayAt) }),
  };
}
