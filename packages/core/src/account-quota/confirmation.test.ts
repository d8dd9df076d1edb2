import { ErrorCodes } from '../errors';
import { assertConfirmed, confirmationLimits, needsConfirmation } from './confirmation';

const HOUR = 3_600_000;
const NOW = 1_700_000_000_000;
const RULE = { confirmAbove: 1_000_000, confirmWithinMs: HOUR };
const DEFAULTS = { dailyBroadcasts: 10, dailyRecipients: 10, minIntervalMs: 0, maxSpeed: 0, ...RULE };

describe('confirmation of a broadcast that reaches many soon', () => {
  it('takes the account override field by field over the defaults', () => {
    expect(confirmationLimits(DEFAULTS, {})).toEqual(RULE);
    expect(confirmationLimits(DEFAULTS, { confirmAbove: 5 })).toEqual({ confirmAbove: 5, confirmWithinMs: HOUR });
  });

  it('needs one above the threshold and within the window only', () => {
    expect(needsConfirmation(RULE, { recipients: 1_000_001, startAt: NOW, now: NOW })).toBe(true);
    expect(needsConfirmation(RULE, { recipients: 1_000_001, startAt: NOW + HOUR - 1, now: NOW })).toBe(true);
    expect(needsConfirmation(RULE, { recipients: 1_000_000, startAt: NOW, now: NOW })).toBe(false);
    expect(needsConfirmation(RULE, { recipients: 1_000_001, startAt: NOW + HOUR, now: NOW })).toBe(false);
  });

  it('accepts exactly the recipient count, and names the field and the count otherwise', () => {
    const broadcast = { recipients: 9_873_201, startAt: NOW, now: NOW };
    expect(() => assertConfirmed(RULE, broadcast, 9_873_201)).not.toThrow();
    for (const confirm of [undefined, 9_873_200, 0]) {
      try {
        assertConfirmed(RULE, broadcast, confirm);
        throw new Error('not refused');
      } catch (error) {
        expect(error).toMatchObject({
          code: ErrorCodes.CONFIRMATION_REQUIRED,
          message:
            'this broadcast reaches 9873201 recipients and starts within 60 minutes: send it again with "confirm": 9873201',
          details: { field: 'confirm', recipients: 9_873_201, threshold: 1_000_000 },
        });
      }
    }
  });
});
