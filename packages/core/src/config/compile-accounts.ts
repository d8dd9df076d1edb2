import { ConfigError } from '../errors';
import { ACCOUNT_ID_PATTERN } from '../access/principal';
import {
  CONFIRMATION_LIMIT_MAX,
  LIMIT_MAX,
  OVERRIDABLE_LIMIT_NAMES,
  type OverridableLimitName,
} from '../account-quota/limits';
import { DEFAULTS, type AccountsConfig, type HeraldOptions } from './options';
import { section } from './section';
import { checkKnownKeys, int } from './validate';

/**
 * B-side control settings (docs/configuration.md, `accounts`;
 * docs/account-quotas.md): the default limits, the click-through scaling,
 * the day boundary, and the followers-only accounts (docs/audience-sources.md).
 */
export function compileAccounts(options: HeraldOptions): AccountsConfig {
  const accounts = section(options, 'accounts', ['defaultLimits', 'clickThrough', 'utcOffsetMinutes', 'followersOnly']);
  const limits = subsection('accounts.defaultLimits', accounts.defaultLimits, [...OVERRIDABLE_LIMIT_NAMES]);
  const ctr = subsection('accounts.clickThrough', accounts.clickThrough, ['referenceRate', 'minFactor', 'maxFactor']);
  const defaults = DEFAULTS.accounts;
  const max: Record<OverridableLimitName, number> = { ...LIMIT_MAX, ...CONFIRMATION_LIMIT_MAX };
  const limit = (name: OverridableLimitName) =>
    int(`accounts.defaultLimits.${name}`, limits[name], defaults.defaultLimits[name], 0, max[name]);
  return {
    defaultLimits: {
      dailyBroadcasts: limit('dailyBroadcasts'),
      dailyRecipients: limit('dailyRecipients'),
      minIntervalMs: limit('minIntervalMs'),
      maxSpeed: limit('maxSpeed'),
      confirmAbove: limit('confirmAbove'),
      confirmWithinMs: limit('confirmWithinMs'),
    },
    clickThrough: {
      referenceRate: fraction(
        'accounts.clickThrough.referenceRate',
        ctr.referenceRate,
        defaults.clickThrough.referenceRate,
        1,
      ),
      minFactor: fraction('accounts.clickThrough.minFactor', ctr.minFactor, defaults.clickThrough.minFactor, 1),
      maxFactor: between('accounts.clickThrough.maxFactor', ctr.maxFactor, defaults.clickThrough.maxFactor, 1, 100),
    },
    utcOffsetMinutes: int('accounts.utcOffsetMinutes', accounts.utcOffsetMinutes, defaults.utcOffsetMinutes, -720, 840),
    followersOnly: accountIds('accounts.followersOnly', accounts.followersOnly),
  };
}

/** The most accounts `accounts.followersOnly` may name: a set held by every dispatcher, not a directory. */
export const MAX_FOLLOWERS_ONLY_ACCOUNTS = 10_000;

/** A list of distinct account ids (the API's `[a-z0-9_]{1,64}`); default none. */
function accountIds(path: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_FOLLOWERS_ONLY_ACCOUNTS)
    throw new ConfigError(path, `must be a list of at most ${MAX_FOLLOWERS_ONLY_ACCOUNTS} account ids`);
  value.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || !ACCOUNT_ID_PATTERN.test(id))
      throw new ConfigError(
        `${path}[${i}]`,
        `must be an account id ([a-z0-9_], 1..64 characters; got ${JSON.stringify(id)})`,
      );
  });
  if (new Set(value).size !== value.length) throw new ConfigError(path, 'must not repeat an account id');
  return [...(value as string[])];
}

function subsection(path: string, value: unknown, known: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, value, known);
  return value as Record<string, unknown>;
}

/** A number in (0, max]. */
function fraction(path: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max)
    throw new ConfigError(path, `must be a number in (0, ${max}] (got ${JSON.stringify(value)})`);
  return value;
}

/** A number in [min, max]. */
function between(path: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new ConfigError(path, `must be a number in [${min}, ${max}] (got ${JSON.stringify(value)})`);
  return value;
}
