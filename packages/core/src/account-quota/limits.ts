import { ValidationError } from '../errors';
import { MAX_TASK_SPEED } from '../task/validate';

/**
 * B-side controls (docs/account-quotas.md): what one account may broadcast.
 * The seed's "配额, 频次. 根据业务上一次投放的效果点击率 配合产品的运营策略 来
 * 分配配额": a quota and a frequency per account, allocated from the click-
 * through rate of its last broadcast and the product's policy (configuration).
 */
export interface AccountLimits {
  /** Broadcasts whose send time falls on one local day. 0 stops the account. */
  readonly dailyBroadcasts: number;
  /** Recipients (list sizes at creation) summed over those broadcasts. */
  readonly dailyRecipients: number;
  /** The frequency: least time between the send times of two broadcasts of the account, ms. 0: none. */
  readonly minIntervalMs: number;
  /**
   * The fastest a task of the account may ask to be sent, recipients per
   * second (NewTask.speed; docs/account-quotas.md "Speed"). 0: the account may
   * not set a speed, and its tasks go at the speed global load gives them.
   */
  readonly maxSpeed: number;
}

/**
 * When a broadcast needs an explicit `confirm` (docs/account-quotas.md,
 * "Confirmation"): it reaches more than confirmAbove recipients and starts
 * within confirmWithinMs. Guard rails against a typo, not quotas: the
 * click-through factor does not scale them.
 */
export interface ConfirmationLimits {
  /** Recipients (list size) above which a broadcast starting soon needs `confirm`. */
  readonly confirmAbove: number;
  /** How soon, ms from the request, a broadcast must start to need it. */
  readonly confirmWithinMs: number;
}

/** The limits `accounts.defaultLimits` configures: the quotas and the confirmation rule. */
export type DefaultLimits = AccountLimits & ConfirmationLimits;

/** An account's own limits, field by field over `accounts.defaultLimits`; {} keeps the defaults. */
export type AccountLimitsOverride = Partial<DefaultLimits>;

/** How the last click-through rate scales the limits (`accounts.clickThrough`). */
export interface ClickThroughPolicy {
  /** The rate at which the limits are the configured ones (factor 1), 0 < r <= 1. */
  readonly referenceRate: number;
  /** The smallest factor a poor rate can bring, 0 < f <= 1. */
  readonly minFactor: number;
  /** The largest factor a good rate can bring, >= 1. */
  readonly maxFactor: number;
}

export const LIMIT_NAMES = [
  'dailyBroadcasts',
  'dailyRecipients',
  'minIntervalMs',
  'maxSpeed',
] as const satisfies readonly (keyof AccountLimits)[];
export type LimitName = (typeof LIMIT_NAMES)[number];

export const CONFIRMATION_LIMIT_NAMES = [
  'confirmAbove',
  'confirmWithinMs',
] as const satisfies readonly (keyof ConfirmationLimits)[];
export type ConfirmationLimitName = (typeof CONFIRMATION_LIMIT_NAMES)[number];

/** Every limit an override or `accounts.defaultLimits` may name. */
export const OVERRIDABLE_LIMIT_NAMES = [...LIMIT_NAMES, ...CONFIRMATION_LIMIT_NAMES] as const;
export type OverridableLimitName = (typeof OVERRIDABLE_LIMIT_NAMES)[number];

/** The largest value each limit may take, configured, overridden or scaled. */
export const LIMIT_MAX: Readonly<Record<LimitName, number>> = Object.freeze({
  dailyBroadcasts: 1_000_000,
  // 10^12 recipients a day: sums of admitted broadcasts stay far below 2^53.
  dailyRecipients: 1_000_000_000_000,
  // One day: the frequency is about spacing within and across adjacent days.
  minIntervalMs: 86_400_000,
  // The fastest speed a task may ask for at all (10^8 recipients/s).
  maxSpeed: MAX_TASK_SPEED,
});

/** The largest value each confirmation limit may take. */
export const CONFIRMATION_LIMIT_MAX: Readonly<Record<ConfirmationLimitName, number>> = Object.freeze({
  // As many recipients as a day may have: above it, no broadcast ever needs confirming.
  confirmAbove: 1_000_000_000_000,
  // A year: "every broadcast that starts this year" is as far as asking makes sense.
  confirmWithinMs: 31_536_000_000,
});

const OVERRIDABLE_LIMIT_MAX: Readonly<Record<OverridableLimitName, number>> = {
  ...LIMIT_MAX,
  ...CONFIRMATION_LIMIT_MAX,
};

/** Factors are whole millionths, so scaling is exact integer arithmetic: 10 x 0.6 gives 6, never 5.999... */
const FACTOR_SCALE = 1_000_000;

/** Fails VALIDATION_FAILED (naming `field`) unless `value` is an integer limit in range. */
export function checkLimitValue(name: OverridableLimitName, value: unknown, field: string = name): number {
  const max = OVERRIDABLE_LIMIT_MAX[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new ValidationError(`${field} must be an integer in [0, ${max}]`, { field });
  }
  return value;
}

/** A checked override: an object with only known limits, each in range. `path` prefixes the field names. */
export function checkLimitsOverride(value: unknown, path = 'limits'): AccountLimitsOverride {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError(`${path} must be an object`, { field: path });
  const checked: { -readonly [K in OverridableLimitName]?: number } = {};
  for (const [key, raw] of Object.entries(value)) {
    if (!(OVERRIDABLE_LIMIT_NAMES as readonly string[]).includes(key))
      throw new ValidationError(`${path}.${key} is not a limit (known: ${OVERRIDABLE_LIMIT_NAMES.join(', ')})`, {
        field: `${path}.${key}`,
      });
    if (raw === undefined) continue;
    checked[key as OverridableLimitName] = checkLimitValue(key as OverridableLimitName, raw, `${path}.${key}`);
  }
  return checked;
}

/** Fails VALIDATION_FAILED unless `rate` is a click-through rate (a fraction in [0, 1]) or null (unknown). */
export function checkClickThroughRate(rate: unknown, field = 'clickThroughRate'): number | null {
  if (rate === null) return null;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new ValidationError(`${field} must be a number in [0, 1] (clicks / delivered) or null`, { field });
  return rate;
}

/**
 * The factor an account's last click-through rate brings: rate / referenceRate,
 * clamped to [minFactor, maxFactor]; 1 while no rate is known. Monotone (a
 * better rate never brings a smaller factor) and bounded (one broadcast, good
 * or bad, moves the limits by at most the clamp).
 */
export function clickThroughFactor(policy: ClickThroughPolicy, rate: number | null): number {
  if (rate === null) return 1;
  const raw = rate / policy.referenceRate;
  const clamped = Math.min(policy.maxFactor, Math.max(policy.minFactor, raw));
  return Math.round(clamped * FACTOR_SCALE) / FACTOR_SCALE;
}

/** The defaults with the account's override applied, before the click-through factor. */
export function baseLimits(defaults: AccountLimits, override: AccountLimitsOverride): AccountLimits {
  return {
    dailyBroadcasts: override.dailyBroadcasts ?? defaults.dailyBroadcasts,
    dailyRecipients: override.dailyRecipients ?? defaults.dailyRecipients,
    minIntervalMs: override.minIntervalMs ?? defaults.minIntervalMs,
    maxSpeed: override.maxSpeed ?? defaults.maxSpeed,
  };
}

/**
 * The limits in force: the quotas and maxSpeed multiplied by the factor
 * (rounded down, and never below 1 when the base allows any: a poor rate
 * shrinks an account, it does not silence it or take its speed away; only a 0
 * configured or overridden does), the interval divided by it (rounded up).
 * Each stays within LIMIT_MAX.
 */
export function scaleLimits(base: AccountLimits, factor: number): AccountLimits {
  const millionths = BigInt(Math.round(factor * FACTOR_SCALE));
  if (millionths <= 0n) throw new ValidationError('the click-through factor must be positive', { field: 'factor' });
  const scale = BigInt(FACTOR_SCALE);
  const quota = (value: number, max: number) =>
    value === 0 ? 0 : Math.min(max, Math.max(1, Number((BigInt(value) * millionths) / scale)));
  // ceil(interval / factor) = ceil(interval * SCALE / millionths), in integers.
  const interval = Number((BigInt(base.minIntervalMs) * scale + millionths - 1n) / millionths);
  return {
    dailyBroadcasts: quota(base.dailyBroadcasts, LIMIT_MAX.dailyBroadcasts),
    dailyRecipients: quota(base.dailyRecipients, LIMIT_MAX.dailyRecipients),
    minIntervalMs: Math.min(LIMIT_MAX.minIntervalMs, interval),
    maxSpeed: quota(base.maxSpeed, LIMIT_MAX.maxSpeed),
  };
}

/** Everything the limits in force are made of, as GET /api/v1/accounts/:id/limits shows it. */
export interface LimitsInForce {
  readonly limits: AccountLimits;
  readonly base: AccountLimits;
  readonly factor: number;
}

export function limitsInForce(
  defaults: AccountLimits,
  override: AccountLimitsOverride,
  policy: ClickThroughPolicy,
  rate: number | null,
): LimitsInForce {
  const base = baseLimits(defaults, override);
  const factor = clickThroughFactor(policy, rate);
  return { limits: scaleLimits(base, factor), base, factor };
}
