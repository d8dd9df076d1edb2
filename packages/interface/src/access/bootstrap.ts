import { ConfigError, ErrorCodes, isHeraldError } from '@herald/core';
import { parseToken } from '@herald/core/access';
import type { AccessStore, Logger } from '@herald/core/ports';
import { hashTokenSecret, sameHash } from './token-crypto';

/** The name a bootstrap token is stored under. */
export const BOOTSTRAP_TOKEN_NAME = 'bootstrap admin';

/**
 * Makes `auth.bootstrapAdminToken` (the CLI fills it from HERALD_ADMIN_TOKEN)
 * exist as an admin token, stored hashed like any other: the way the first
 * admin comes to exist without the CLI's `herald token create`.
 *
 * Safe to run at every start, on every interface process at once:
 * - no token has the id: it is created (a process that loses the race to
 *   create it finds the winner's record and checks that instead);
 * - the id exists with the same secret: nothing to do. A revoked bootstrap
 *   token stays revoked (a warning says so): revocation must win over a
 *   config file that still names the token;
 * - the id exists with another secret: a ConfigError, so a typo or a second
 *   operator's token can never be taken over by editing the config.
 */
export async function ensureBootstrapAdmin(
  store: AccessStore,
  raw: string,
  now: number,
  logger: Logger,
): Promise<void> {
  const parsed = parseToken(raw);
  if (parsed === undefined)
    throw new ConfigError('auth.bootstrapAdminToken', 'must be a token hrd_<id>_<secret> (the value is not shown)');
  const hash = hashTokenSecret(parsed.secret);
  let existing = await store.findToken(parsed.tokenId);
  if (existing === undefined) {
    try {
      await store.createToken({
        id: parsed.tokenId,
        name: BOOTSTRAP_TOKEN_NAME,
        role: 'admin',
        accounts: [],
        hash,
        createdAt: now,
      });
      logger.info('bootstrap admin token stored (hashed)', { tokenId: parsed.tokenId });
      return;
    } catch (error) {
      if (!isHeraldError(error) || error.code !== ErrorCodes.TOKEN_EXISTS) throw error;
      existing = await store.findToken(parsed.tokenId);
      if (existing === undefined) throw error;
    }
  }
  if (!sameHash(existing.hash, hash)) {
    throw new ConfigError(
      'auth.bootstrapAdminToken',
      `token id ${parsed.tokenId} already exists with another secret: choose another id`,
    );
  }
  if (existing.revokedAt !== null)
    logger.warn('auth.bootstrapAdminToken names a revoked token: it stays revoked; remove it from the configuration', {
      tokenId: existing.id,
    });
  else if (existing.role !== 'admin')
    logger.warn('auth.bootstrapAdminToken names a token that is not an admin token', {
      tokenId: existing.id,
      role: existing.role,
    });
}
