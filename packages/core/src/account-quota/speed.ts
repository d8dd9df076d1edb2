import type { QuotaRefusal } from './admit';
import type { AccountLimits } from './limits';

/**
 * Who may set a task's speed (docs/account-quotas.md "Speed"): a task may ask
 * for at most its account's `maxSpeed` recipients per second in force (the
 * configured or overridden limit scaled by the click-through factor); an
 * account whose maxSpeed is 0 may not ask for one at all. Pure; the speed's
 * own shape (an integer 1..10^8) is checked before (task/validate.ts
 * isTaskSpeed). Undefined: the speed is allowed, or none was asked for.
 */
export function speedRefusal(limits: AccountLimits, speed: number | undefined): QuotaRefusal | undefined {
  if (speed === undefined || speed <= limits.maxSpeed) return undefined;
  const message =
    limits.maxSpeed === 0
      ? `the account may not set a speed (its maxSpeed is 0): leave speed out and the task is sent at the speed global load gives it`
      : `the speed of ${speed} recipients/s exceeds the account's maxSpeed of ${limits.maxSpeed} recipients/s`;
  return { limit: 'maxSpeed', field: 'speed', message, max: limits.maxSpeed, used: 0, requested: speed };
}
