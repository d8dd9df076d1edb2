import { readPresenceEvent } from './presence-event';

describe('readPresenceEvent', () => {
  // Found by presence-event.fuzz.test.ts: describing a field that has no JSON (a BigInt, a cycle)
  // threw TypeError instead of returning the malformed reason.
  it('reports a field with no JSON form as malformed instead of throwing', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(readPresenceEvent({ uin: [0n] }, 0, 1)).toEqual({ malformed: 'uin object is not an integer in [0, 1)' });
    expect(readPresenceEvent({ uin: 5n, online: true }, 0, 10)).toEqual({
      malformed: 'uin bigint is not an integer in [0, 10)',
    });
    expect(readPresenceEvent({ uin: 1, online: cycle }, 0, 10)).toEqual({
      malformed: 'online object is not a boolean',
    });
    expect(readPresenceEvent({ uin: 1, online: true, at: Symbol('t') }, 0, 10)).toEqual({
      malformed: 'at symbol is not a number',
    });
  });

  it('still shows a JSON field as JSON in the reason', () => {
    expect(readPresenceEvent({ uin: '7', online: true }, 0, 10)).toEqual({
      malformed: 'uin "7" is not an integer in [0, 10)',
    });
  });
});
