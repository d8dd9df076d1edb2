import { ErrorCodes, HeraldError, ValidationError } from '@herald/core';
import type { TaskRollout } from '@herald/core/rollout';
import type { PriorityClass, Task } from '@herald/core/task';
import { parseDeliverAt, parseQuietHours, type DeliverAt, type QuietHours } from '@herald/core/time';

/** The longest Idempotency-Key header accepted: with `api:<accountId>:` it fits the store's 255-character key. */
export const MAX_IDEMPOTENCY_HEADER_CHARS = 128;

/**
 * The task-store key of an `Idempotency-Key` header (docs/api.md, "Idempotent
 * creation"): scoped by account, so two accounts' clients never share a key.
 * Undefined without the header; a header that is repeated, empty, longer than
 * 128 characters or not printable ASCII is a ValidationError naming it.
 */
export function apiIdempotencyKey(header: string | string[] | undefined, accountId: string): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !/^[\x21-\x7e]+$/.test(header) || header.length > MAX_IDEMPOTENCY_HEADER_CHARS) {
    throw new ValidationError(
      `the Idempotency-Key header must be one value of 1..${MAX_IDEMPOTENCY_HEADER_CHARS} printable ASCII characters`,
      { field: 'Idempotency-Key' },
    );
  }
  return `api:${accountId}:${header}`;
}

/** What a repeated request must match to be answered with the task its first try created. */
export interface TaskRequestShape {
  listId: string;
  content: { body: string; title?: string; template?: boolean };
  priority?: PriorityClass;
  speed?: number;
  targeting?: string;
  collapseKey?: string;
  deliverAt?: unknown;
  quietHours?: unknown;
  /** The rollout parsed from the request (its seed is drawn anew, so not compared). */
  rollout?: TaskRollout;
}

/** The canary, variants and holdout of a rollout, without its seed: what two requests must share. */
function splitOf(rollout: TaskRollout | undefined): string {
  return JSON.stringify(
    rollout === undefined ? null : [rollout.canary ?? null, rollout.variants ?? null, rollout.holdout ?? 0],
  );
}

/**
 * Refuses a key used before for another request: same account (the key is
 * scoped by it), list, content, priority, speed, targeting, collapse key, canary and A/B split, deliverAt and
 * quiet hours, or 409 IDEMPOTENCY_KEY_REUSED.
 * sendAt and ttlSeconds of a retry are not compared: the first request's stand.
 */
export function assertSameRequest(existing: Task, request: TaskRequestShape): void {
  const same =
    existing.listId === request.listId &&
    existing.content.body === request.content.body &&
    existing.content.title === request.content.title &&
    (existing.content.template === true) === (request.content.template === true) &&
    existing.priority === (request.priority ?? 'normal') &&
    existing.speed === (request.speed ?? null) &&
    existing.targeting === (request.targeting ?? null) &&
    existing.collapseKey === request.collapseKey &&
    splitOf(existing.rollout) === splitOf(request.rollout) &&
    sameDeliverAt(existing.deliverAt, request.deliverAt) &&
    // A request without quiet hours may have taken its account's: only quiet hours it names are compared.
    (request.quietHours === undefined || sameQuietHours(existing.quietHours, parseQuietHours(request.quietHours)));
  if (!same) {
    throw new HeraldError(
      ErrorCodes.IDEMPOTENCY_KEY_REUSED,
      `this Idempotency-Key was used for another request (task ${existing.id})`,
      {
        details: { field: 'Idempotency-Key', taskId: existing.id },
      },
    );
  }
}

/**
 * Field by field (a store may keep the JSON's keys in another order); the
 * default zone only when the request names one, since the account's fills it
 * otherwise.
 */
function sameDeliverAt(a: DeliverAt | undefined, raw: unknown): boolean {
  const b = raw === undefined ? undefined : parseDeliverAt(raw);
  if (a === undefined || b === undefined) return a === b;
  const namedZone = (raw as { defaultTimeZone?: unknown }).defaultTimeZone !== undefined;
  return (
    a.localTime === b.localTime &&
    a.windowMs === b.windowMs &&
    a.missed === b.missed &&
    (!namedZone || a.defaultTimeZone === b.defaultTimeZone)
  );
}

function sameQuietHours(a: QuietHours | undefined, b: QuietHours): boolean {
  return a !== undefined && a.from === b.from && a.to === b.to && a.during === b.during;
}
