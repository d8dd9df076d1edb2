import { ValidationError } from '../errors';
import type { UserAttributes } from '../targeting/attributes';

/** Uins per getUsers call the adapters accept: one executor batch (4,096) with room to spare. */
export const MAX_USERS_PER_LOOKUP = 10_000;

/**
 * Users' attributes by uin, for personalised content (docs/delivery.md,
 * "Personalised content"): an executor asks once per batch of a template task
 * and renders each recipient's text from the answer. The same store as the
 * targeting index (AttributeIndex): the embedded and MySQL indexes implement
 * both ports, so one write of a user's attributes serves targeting and
 * templates alike.
 *
 * Contract, checked by the UserAttributeLookup conformance suite for every
 * adapter:
 * - `getUsers(uins)` answers one entry per uin, in the same order (a uin twice
 *   answers twice): what putUsers stored for it (tags sorted), or undefined
 *   for a user the store does not hold, or a value that is no uin.
 * - At most MAX_USERS_PER_LOOKUP uins a call (VALIDATION_FAILED beyond);
 *   an empty list answers an empty list.
 * - A store that cannot answer rejects with a HeraldError (UNAVAILABLE,
 *   retriable, for a connection lost; STORE_CLOSED after close).
 */
export interface UserAttributeLookup {
  getUsers(uins: ArrayLike<number>): Promise<(UserAttributes | undefined)[]>;
}

/** The size rule of getUsers, shared by the adapters. */
export function checkLookupSize(uins: ArrayLike<number>): void {
  if (
    uins === null ||
    typeof uins !== 'object' ||
    !Number.isInteger(uins.length) ||
    uins.length > MAX_USERS_PER_LOOKUP
  ) {
    throw new ValidationError(`getUsers takes a list of at most ${MAX_USERS_PER_LOOKUP} uins`, { field: 'uins' });
  }
}

/** A value a user can be stored under: an integer in [0, 2^32). */
export function isLookupUin(uin: unknown): uin is number {
  return Number.isInteger(uin) && (uin as number) >= 0 && (uin as number) < 2 ** 32;
}
