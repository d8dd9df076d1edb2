import { ErrorCodes, HeraldError } from '../errors';
import type { AccountLimitsOverride, ConfirmationLimits, DefaultLimits } from './limits';

/**
 * Guard rails proportional to reach (docs/account-quotas.md, "Confirmation"):
 * a broadcast that reaches many recipients soon must say how many it
 * expects, so a typo in a request (the wrong list, a missing sendAt) is
 * refused before anyone is sent anything.
 */

/** The account's confirmation rule: its override over the configured defaults. */
export function confirmationLimits(defaults: DefaultLimits, override: AccountLimitsOverride): ConfirmationLimits {
  return {
    confirmAbove: override.confirmAbove ?? defaults.confirmAbove,
    confirmWithinMs: override.confirmWithinMs ?? defaults.confirmWithinMs,
  };
}

/** What the rule looks at in a broadcast. */
export interface ReachOfBroadcast {
  /** The list's size (list.count): what the account asked to reach. */
  readonly recipients: number;
  /** When it starts, epoch ms. */
  readonly startAt: number;
  /** When it is asked for, epoch ms. */
  readonly now: number;
}

/** Whether the broadcast needs `confirm`: over the threshold and starting within the window. */
export function needsConfirmation(limits: ConfirmationLimits, broadcast: ReachOfBroadcast): boolean {
  return broadcast.recipients > limits.confirmAbove && broadcast.startAt - broadcast.now < limits.confirmWithinMs;
}

/**
 * 409 CONFIRMATION_REQUIRED when the broadcast needs a confirmation and
 * `confirm` is not its recipient count; nothing otherwise. Checked before any
 * quota is held or task created.
 */
export function assertConfirmed(
  limits: ConfirmationLimits,
  broadcast: ReachOfBroadcast,
  confirm: number | undefined,
): void {
  if (!needsConfirmation(limits, broadcast) || confirm === broadcast.recipients) return;
  throw new ConfirmationRequiredError(broadcast.recipients, limits);
}

/** A broadcast that reaches many recipients soon, sent without `"confirm": <its recipient count>`. */
export class ConfirmationRequiredError extends HeraldError {
  constructor(recipients: number, limits: ConfirmationLimits) {
    const message = `this broadcast reaches ${recipients} recipients and starts within ${describeWindow(limits.confirmWithinMs)}: send it again with "confirm": ${recipients}`;
    super(ErrorCodes.CONFIRMATION_REQUIRED, message, {
      details: { field: 'confirm', recipients, threshold: limits.confirmAbove },
    });
  }
}

/** "60 minutes", "90 seconds", "2 days": the window as a person reads it. */
function describeWindow(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  // The largest unit that divides it exactly, except that up to two hours reads best in minutes.
  for (const [size, name] of units) {
    const n = ms / size;
    if (Number.isInteger(n) && n >= 1 && !(name === 'hour' && n <= 2)) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return `${ms} ms`;
}
