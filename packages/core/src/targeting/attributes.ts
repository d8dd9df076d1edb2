/**
 * The user attributes a targeting query can select on, and how a user's
 * attributes become the keys of the per-value bitsets an AttributeIndex holds
 * (docs/audience-sources.md, "Targeting"). One bitset per attribute value:
 *
 * | attribute     | key                 | values |
 * |---------------|---------------------|--------|
 * | region        | `region=<value>`    | a value token (below) |
 * | gender        | `gender=<f/m/x>`    | f, m, x |
 * | age band      | `age=<band>`        | 0-17, 18-24, 25-34, 35-44, 45-54, 55-64, 65+ |
 * | tags          | `tag=<value>`       | any number of value tokens (at most 64 a user) |
 * | last active   | `active=<day>`      | the UTC day number (days since 1970-01-01) of the last activity |
 * | time zone     | `tz=<zone>`         | an IANA name (canonical spelling) or a fixed offset '+HH:MM': local-time delivery groups by it |
 * | every user    | `*`                 | the users the index holds: what NOT is relative to |
 *
 * A user is in at most one bitset per single-valued attribute, so `active`
 * is one bucket per day and `active-since:D` is the union of the buckets
 * from D on.
 */
import { ValidationError } from '../errors';
import { parseUserTimeZone } from '../time/local-time';

export const GENDERS = ['f', 'm', 'x'] as const;
export type Gender = (typeof GENDERS)[number];
export const AGE_BANDS = ['0-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

/** The key of the bitset of every user in the index. */
export const UNIVERSE_KEY = '*';
export const MAX_TAGS_PER_USER = 64;
export const MAX_VALUE_CHARS = 64;
const MS_PER_DAY = 86_400_000;
/** Region and tag values: Unicode letters and digits, `_ . + -`; 1..64 characters. */
const VALUE = /^[\p{L}\p{N}_.+-]{1,64}$/u;

export interface UserAttributes {
  uin: number;
  region?: string | null;
  gender?: Gender | null;
  ageBand?: AgeBand | null;
  /** The user's last activity, epoch ms; its UTC day is what `active-since` compares. */
  activeAt?: number | null;
  tags?: readonly string[];
  /** The user's time zone (docs/local-time.md): an IANA name or '+HH:MM'; local-time tasks release the user by it. */
  tz?: string | null;
}

/** The prefix of the time-zone bitsets' keys (`tz=Europe/Berlin`). */
export const TZ_KEY_PREFIX = 'tz=';

export function isAttributeValue(value: string): boolean {
  return VALUE.test(value);
}

/** The UTC day number of an epoch-ms instant. */
export function utcDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** Checks a user's attributes (uin below `uinLimit`); tags come back deduplicated and sorted. */
export function checkUserAttributes(user: unknown, uinLimit: number): UserAttributes {
  if (user === null || typeof user !== 'object' || Array.isArray(user))
    throw new ValidationError(
      'user attributes must be an object { uin, region?, gender?, ageBand?, activeAt?, tags?, tz? }',
    );
  const { uin, region, gender, ageBand, activeAt, tags, tz, ...rest } = user as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw new ValidationError(`user attributes have unknown fields: ${extra.join(', ')}`, { field: extra[0] });
  if (!Number.isInteger(uin) || (uin as number) < 0 || (uin as number) >= uinLimit)
    throw new ValidationError(`uin must be an integer in [0, ${uinLimit})`, { field: 'uin' });
  const checked: UserAttributes = { uin: uin as number };
  if (region !== undefined && region !== null) {
    if (typeof region !== 'string' || !VALUE.test(region))
      throw new ValidationError('region must be 1..64 letters, digits, _ . + -', { field: 'region', uin });
    checked.region = region;
  }
  if (gender !== undefined && gender !== null) {
    if (!(GENDERS as readonly unknown[]).includes(gender))
      throw new ValidationError(`gender must be one of ${GENDERS.join(', ')}`, { field: 'gender', uin });
    checked.gender = gender as Gender;
  }
  if (ageBand !== undefined && ageBand !== null) {
    if (!(AGE_BANDS as readonly unknown[]).includes(ageBand))
      throw new ValidationError(`ageBand must be one of ${AGE_BANDS.join(', ')}`, { field: 'ageBand', uin });
    checked.ageBand = ageBand as AgeBand;
  }
  if (activeAt !== undefined && activeAt !== null) {
    if (!Number.isSafeInteger(activeAt) || (activeAt as number) < 0)
      throw new ValidationError('activeAt must be a non-negative integer of epoch ms', { field: 'activeAt', uin });
    checked.activeAt = activeAt as number;
  }
  if (tags !== undefined) {
    if (!Array.isArray(tags) || tags.length > MAX_TAGS_PER_USER)
      throw new ValidationError(`tags must be a list of at most ${MAX_TAGS_PER_USER} tags`, { field: 'tags', uin });
    for (const tag of tags)
      if (typeof tag !== 'string' || !VALUE.test(tag))
        throw new ValidationError('each tag must be 1..64 letters, digits, _ . + -', { field: 'tags', uin });
    checked.tags = [...new Set(tags as string[])].sort();
  }
  if (tz !== undefined && tz !== null) checked.tz = parseUserTimeZone(tz, 'tz');
  return checked;
}

/** The keys of every bitset a user is in, the universe first. */
export function userBitsetKeys(user: UserAttributes): string[] {
  const keys = [UNIVERSE_KEY];
  if (user.region != null) keys.push(`region=${user.region}`);
  if (user.gender != null) keys.push(`gender=${user.gender}`);
  if (user.ageBand != null) keys.push(`age=${user.ageBand}`);
  if (user.activeAt != null) keys.push(`active=${utcDay(user.activeAt)}`);
  for (const tag of user.tags ?? []) keys.push(`tag=${tag}`);
  if (user.tz != null) keys.push(`${TZ_KEY_PREFIX}${user.tz}`);
  return keys;
}

/** The day number of an `active=<day>` key, or undefined for any other key. */
export function activeDayOfKey(key: string): number | undefined {
  if (!key.startsWith('active=')) return undefined;
  const day = Number(key.slice('active='.length));
  return Number.isSafeInteger(day) ? day : undefined;
}
