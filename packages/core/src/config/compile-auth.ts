import { parseToken } from '../access/token';
import { ConfigError } from '../errors';
import { DEFAULTS, type AuthConfig, type HeraldOptions } from './options';
import { section } from './section';
import { checkKnownKeys, int } from './validate';

/** A kept console session lasts at most 30 days: past that, the operator signs in again. */
const MAX_SESSION_AGE_MS = 30 * 24 * 3_600_000;

/**
 * The API's access settings (docs/configuration.md, `auth`): the per-token
 * rate limit, how long a verified token is trusted before the store is asked
 * again (the bound on how late a revocation takes effect), how long a kept
 * console session lasts, and the optional
 * bootstrap admin token. The token is checked for shape only and never echoed
 * in an error.
 */
export function compileAuth(options: HeraldOptions): AuthConfig {
  const auth = section(options, 'auth', ['rateLimit', 'tokenCacheMs', 'sessionMaxAgeMs', 'bootstrapAdminToken']);
  const rateLimit = auth.rateLimit ?? {};
  if (rateLimit === null || typeof rateLimit !== 'object' || Array.isArray(rateLimit))
    throw new ConfigError('auth.rateLimit', 'must be an object');
  checkKnownKeys('auth.rateLimit', rateLimit, ['perSecond', 'burst']);
  const perSecond = rateLimit.perSecond ?? DEFAULTS.auth.rateLimit.perSecond;
  if (typeof perSecond !== 'number' || !Number.isFinite(perSecond) || perSecond < 0 || perSecond > 1_000_000) {
    throw new ConfigError(
      'auth.rateLimit.perSecond',
      `must be a number in [0, 1000000]; 0 turns rate limiting off (got ${JSON.stringify(perSecond)})`,
    );
  }
  const token = auth.bootstrapAdminToken;
  if (token !== undefined && parseToken(token) === undefined) {
    throw new ConfigError(
      'auth.bootstrapAdminToken',
      'must be a token hrd_<id>_<secret>: id 4..32 of [a-z0-9], secret 32..128 of [A-Za-z0-9_-] (the value is not shown)',
    );
  }
  return {
    rateLimit: {
      perSecond,
      burst: int('auth.rateLimit.burst', rateLimit.burst, DEFAULTS.auth.rateLimit.burst, 1, 1_000_000),
    },
    tokenCacheMs: int('auth.tokenCacheMs', auth.tokenCacheMs, DEFAULTS.auth.tokenCacheMs, 0, 3_600_000),
    sessionMaxAgeMs: int(
      'auth.sessionMaxAgeMs',
      auth.sessionMaxAgeMs,
      DEFAULTS.auth.sessionMaxAgeMs,
      60_000,
      MAX_SESSION_AGE_MS,
    ),
    bootstrapAdminToken: token ?? null,
  };
}
