import { ConfigError } from '@herald/core';
import { readPresenceEvent } from './presence-event';
import { checkSignature, presenceKey, signedBytes, signPresenceEvent } from './presence-signature';

/** The worked example of docs/presence.md, "Signed events": a login service in another language must get this sig. */
const DOC_KEY = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0', 'utf8');
const DOC_CHANGE = { uin: 123, online: true, at: 1763780000000 };
const DOC_SIG = 'df5296839ba764253cdba79be70d84a0cf12a14b6137e2c423b4bc507cd4d837'; // also: printf 'herald.presence.v2\n123\n1\n1763780000000' | openssl dgst -sha256 -hmac <key>

const read = (value: unknown) => {
  const change = readPresenceEvent(JSON.parse(JSON.stringify(value)), 0, 2 ** 32);
  if ('malformed' in change) throw new Error(change.malformed);
  return change;
};

describe('signed presence events', () => {
  it('signs the documented bytes, giving the documented example', () => {
    expect(signedBytes(DOC_CHANGE).toString('utf8')).toBe('herald.presence.v2\n123\n1\n1763780000000');
    expect(signPresenceEvent(DOC_KEY, DOC_CHANGE)).toEqual({ v: 2, ...DOC_CHANGE, sig: DOC_SIG });
  });

  it('accepts its own signature after a JSON round trip, and refuses any changed field', () => {
    const value = signPresenceEvent(DOC_KEY, DOC_CHANGE);
    expect(checkSignature(DOC_KEY, value, read(value))).toBe('signed');
    for (const changed of [{ uin: 124 }, { online: false }, { at: DOC_CHANGE.at + 1 }]) {
      const forged = { ...value, ...changed };
      expect(checkSignature(DOC_KEY, forged, read(forged))).toBe('bad_signature');
    }
    const otherKey = Buffer.alloc(32, 7);
    expect(checkSignature(otherKey, value, read(value))).toBe('bad_signature');
  });

  it('tells unsigned (version 1) events from badly signed ones', () => {
    const v1 = { uin: 5, online: true, at: 10 };
    expect(checkSignature(DOC_KEY, v1, read(v1))).toBe('unsigned');
    expect(checkSignature(DOC_KEY, { ...v1, v: 1 }, read({ ...v1, v: 1 }))).toBe('unsigned');
    for (const bad of [
      { ...v1, v: 2 },
      { ...v1, v: 2, sig: 'zz' },
      { ...v1, sig: '0'.repeat(64) },
      { ...v1, v: 1, sig: '0'.repeat(64) },
    ]) {
      expect(checkSignature(DOC_KEY, bad, read(bad))).toBe('bad_signature');
    }
  });

  it('reads version 2 like version 1, needing an integer at, and refuses unknown versions', () => {
    expect(read({ v: 2, uin: 1, online: false, at: 5, sig: 'x' })).toEqual({ uin: 1, online: false, at: 5 });
    expect(readPresenceEvent({ v: 2, uin: 1, online: true }, 9, 16)).toEqual({
      malformed: expect.stringMatching(/version 2 needs/),
    });
    expect(readPresenceEvent({ v: 2, uin: 1, online: true, at: 1.5 }, 9, 16)).toEqual({
      malformed: expect.stringMatching(/version 2 needs/),
    });
    expect(readPresenceEvent({ v: 3, uin: 1, online: true, at: 1 }, 9, 16)).toEqual({
      malformed: 'v 3 is not a known version (1 or 2)',
    });
  });

  it("takes a key file's bytes without one trailing newline, and refuses a short key naming the setting", () => {
    expect(presenceKey(Buffer.from('a'.repeat(64) + '\n'))).toEqual(Buffer.from('a'.repeat(64)));
    expect(presenceKey(Buffer.from('a'.repeat(64) + '\r\n'))).toEqual(Buffer.from('a'.repeat(64)));
    expect(() => presenceKey(Buffer.from('short\n'))).toThrow(ConfigError);
    expect(() => presenceKey(Buffer.from('short\n'))).toThrow(
      /^config presence\.hmacKeyFile: holds a 5-byte key: at least 32/,
    );
  });
});
