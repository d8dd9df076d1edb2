import { seededRandom } from '@herald/core';
import { AGE_BANDS, GENDERS, type UserAttributes } from '@herald/core/targeting';
import { api, type ApiTarget } from '../http-client';

/**
 * What the demo seeds so the embedded profile's two audience sources have
 * something to build from: followers of the demo account (the "All
 * followers" source) and users' attributes (the "A targeting query"
 * source, and the variables of personalised content). Both go in through
 * the public API, as an importer's would (POST /api/v1/follows and
 * POST /api/v1/user-attributes, docs/audience-sources.md).
 */

/** The regions and tags the seeded users have: those the operator guide's example query names. */
export const DEMO_REGIONS = ['eu', 'us', 'cn-gd', 'cn-bj', 'in'] as const;
export const DEMO_TAGS = ['vip', 'news', 'sports', 'churned'] as const;
/** At most this many users get attributes (and may follow): a sample spread over the audience keeps the start quick (100,000 took 8 s on 2 cores, 20,000 under 2 s). */
export const DEMO_SEEDED_USERS = 20_000;
/** The share of the seeded users who follow the demo account. */
export const DEMO_FOLLOWER_SHARE = 0.6;
/** Users per request: the API's own maximum for both routes. */
const PER_REQUEST = 10_000;
const DAY_MS = 86_400_000;

export interface DemoAudiences {
  users: UserAttributes[];
  followers: number[];
}

/**
 * The seeded users, drawn from the audience's distinct uins: an even sample
 * of at most DEMO_SEEDED_USERS, each with a region, a gender, an age band,
 * a last activity in the 60 days before `now` and up to two tags. The same
 * seed gives the same users.
 */
export function demoAudiences(distinct: Uint32Array, seed: number, now: number): DemoAudiences {
  const random = seededRandom(seed ^ 0x5eed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const count = Math.min(distinct.length, DEMO_SEEDED_USERS);
  const step = distinct.length / Math.max(1, count);
  const users: UserAttributes[] = [];
  const followers: number[] = [];
  for (let i = 0; i < count; i++) {
    const uin = distinct[Math.floor(i * step)]!;
    const tags = [...new Set([pick(DEMO_TAGS), pick(DEMO_TAGS)])].slice(0, Math.floor(random() * 3));
    users.push({
      uin,
      region: pick(DEMO_REGIONS),
      gender: pick(GENDERS),
      ageBand: pick(AGE_BANDS),
      activeAt: now - Math.floor(random() * 60 * DAY_MS),
      tags,
    });
    if (random() < DEMO_FOLLOWER_SHARE) followers.push(uin);
  }
  return { users, followers };
}

/** Writes the seeded followers of `accountId` and the users' attributes through the API. */
export async function seedDemoAudiences(target: ApiTarget, accountId: string, seeded: DemoAudiences): Promise<void> {
  const at = Date.now();
  for (let i = 0; i < seeded.followers.length; i += PER_REQUEST) {
    const changes = seeded.followers.slice(i, i + PER_REQUEST).map((uin) => ({ accountId, uin, following: true, at }));
    await api(target, 'POST', '/api/v1/follows', { changes });
  }
  for (let i = 0; i < seeded.users.length; i += PER_REQUEST)
    await api(target, 'POST', '/api/v1/user-attributes', { users: seeded.users.slice(i, i + PER_REQUEST) });
}
