import { checkProgressRecord } from './record';
import { checkWaiting, describeWaiting, sameWaiting, type WaitingReason } from './waiting';

const full: WaitingReason = { reason: 'sender_slots', slots: 4, inUse: 4, heldBy: [12, 15], ahead: 0, since: 1 };

describe('describeWaiting', () => {
  it('names the slots and the tasks holding them, with an ellipsis for the ones not named', () => {
    expect(describeWaiting(full)).toBe('waiting for a sender slot: 4 of 4 in use by tasks 12, 15, …');
    expect(describeWaiting({ ...full, slots: 1, inUse: 1, heldBy: [7], ahead: 2 })).toBe(
      'waiting for a sender slot: 1 of 1 in use by task 7; 2 ahead in the queue',
    );
  });
});

describe('sameWaiting', () => {
  it('ignores the time and compares the rest', () => {
    expect(sameWaiting(full, { ...full, since: 99 })).toBe(true);
    expect(sameWaiting(full, { ...full, heldBy: [12, 16] })).toBe(false);
    expect(sameWaiting(full, null)).toBe(false);
    expect(sameWaiting(null, null)).toBe(true);
  });
});

describe('checkWaiting and checkProgressRecord', () => {
  it('accepts a good record and null', () => {
    expect(checkWaiting(null)).toBeNull();
    const record = { history: { intervalMs: 1000, samples: [] }, waiting: full, updatedAt: 5 };
    expect(checkProgressRecord(record)).toBe(record);
  });

  it.each([
    [{ ...full, reason: 'other' }, 'waiting.reason'],
    [{ ...full, heldBy: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, 'waiting.heldBy'],
    [{ ...full, inUse: -1 }, 'waiting.inUse'],
    [{ ...full, why: 'x' }, 'waiting.why is not a known field'],
  ])('refuses %j naming the field', (bad, message) => {
    expect(() => checkWaiting(bad as unknown as WaitingReason)).toThrow(message);
  });

  it('refuses unknown fields of the record', () => {
    expect(() =>
      checkProgressRecord({ history: { intervalMs: 1, samples: [] }, waiting: null, updatedAt: 1, x: 1 } as never),
    ).toThrow('progress.x is not a known field');
  });
});
