import { limitsInForce, type AccountLimits } from './limits';
import { speedRefusal } from './speed';

const LIMITS: AccountLimits = { dailyBroadcasts: 10, dailyRecipients: 1000, minIntervalMs: 0, maxSpeed: 500 };

describe('speedRefusal (who may set a speed)', () => {
  it('admits no speed at all, and any speed up to maxSpeed', () => {
    expect(speedRefusal(LIMITS, undefined)).toBeUndefined();
    expect(speedRefusal({ ...LIMITS, maxSpeed: 0 }, undefined)).toBeUndefined();
    expect(speedRefusal(LIMITS, 1)).toBeUndefined();
    expect(speedRefusal(LIMITS, 500)).toBeUndefined();
  });

  it('refuses a speed over maxSpeed, naming the limit, the field and both numbers', () => {
    const refusal = speedRefusal(LIMITS, 501);
    expect(refusal).toMatchObject({ limit: 'maxSpeed', field: 'speed', max: 500, used: 0, requested: 501 });
    expect(refusal?.message).toMatch(/speed of 501 recipients\/s exceeds the account's maxSpeed of 500/);
    expect(refusal).not.toHaveProperty('retryAt'); // no later send time helps
  });

  it('tells an account whose maxSpeed is 0 that it may not set a speed', () => {
    expect(speedRefusal({ ...LIMITS, maxSpeed: 0 }, 1)?.message).toMatch(/may not set a speed/);
  });

  it('decides by the limit in force: the click-through factor scales maxSpeed, and never gives a speed to an account with 0', () => {
    const policy = { referenceRate: 0.05, minFactor: 0.5, maxFactor: 2 };
    const good = limitsInForce(LIMITS, {}, policy, 0.1).limits;
    expect(speedRefusal(good, 1000)).toBeUndefined();
    const poor = limitsInForce(LIMITS, {}, policy, 0.01).limits;
    expect(speedRefusal(poor, 251)).toMatchObject({ max: 250 });
    expect(speedRefusal(limitsInForce(LIMITS, { maxSpeed: 0 }, policy, 1).limits, 1)).toMatchObject({ max: 0 });
  });
});
