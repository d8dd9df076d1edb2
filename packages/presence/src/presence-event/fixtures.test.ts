/**
 * Presence event values per version, exactly as login services publish them
 * (fixtures/*.json: the Kafka value's bytes), read with today's reader. A
 * fixture is written once, when its version is made, and never rewritten.
 * The version 2 one is signed with FIXTURE_KEY; its `sig` was also checked
 * with `openssl dgst -sha256 -hmac`, so it pins the signed bytes' format.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSignature, signPresenceEvent } from '../presence-signature';
import { PRESENCE_EVENT_VERSIONS, readPresenceEvent } from './index';

const FIXTURE_KEY = Buffer.from('herald presence fixture key, 32+ bytes long');
const TIMESTAMP = 1_763_780_000_123;
const UIN_LIMIT = 2 ** 32;

const value = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, 'fixtures', `${name}.json`), 'utf8'));

describe('presence event fixtures, per version', () => {
  it('reads versions 1 and 2', () => expect(PRESENCE_EVENT_VERSIONS).toEqual([1, 2]));

  it.each([
    ['v1', { uin: 123, online: true, at: 1_763_780_000_000 }],
    ['v1-without-at', { uin: 123, online: false, at: TIMESTAMP }],
    ['v1-explicit', { uin: 2 ** 32 - 1, online: true, at: 1_763_780_000_000.5 }],
    ['v2', { uin: 123, online: true, at: 1_763_780_000_000 }],
  ])('reads %s with the reader of today', (name, change) => {
    expect(readPresenceEvent(value(name), TIMESTAMP, UIN_LIMIT)).toEqual(change);
  });

  it('round-trips version 2, the one a login service signs: same value, valid signature', () => {
    const change = { uin: 123, online: true, at: 1_763_780_000_000 };
    expect(signPresenceEvent(FIXTURE_KEY, change)).toEqual(value('v2'));
    expect(checkSignature(FIXTURE_KEY, value('v2'), change)).toBe('signed');
    expect(checkSignature(FIXTURE_KEY, value('v1'), change)).toBe('unsigned');
  });

  it('refuses a version it does not read by name, as a malformed event (counted and skipped, never half-read)', () => {
    expect(readPresenceEvent({ ...(value('v2') as object), v: 3 }, TIMESTAMP, UIN_LIMIT)).toEqual({
      malformed: 'v 3 is not a known version (1 or 2)',
    });
    expect(readPresenceEvent({ ...(value('v1') as object), v: '2' }, TIMESTAMP, UIN_LIMIT)).toEqual({
      malformed: 'v "2" is not a known version (1 or 2)',
    });
  });
});
