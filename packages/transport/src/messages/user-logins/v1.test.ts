import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, patched, hex } from '../frame.test-util';
import type { UserLogins } from '../types';

const sample: UserLogins = { kind: 'user.logins', uins: Uint32Array.of(7, 0xfffffffe) };
//                  kind version reserved count    uins
const FIXTURE = '09 01 0000 02000000 07000000 feffffff';

describe('user.logins v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a count that disagrees with the body, a zero count and non-zero reserved bytes', () => {
    const frame = hex(FIXTURE);
    expect(frameErrorCode(() => decode(patched(frame, 4, [3, 0, 0, 0])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(hex('09 01 0000 00000000')))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(frame, 2, [1, 0])))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode no uins or uins that are not a Uint32Array', () => {
    expect(frameErrorCode(() => encode({ kind: 'user.logins', uins: new Uint32Array(0) }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ kind: 'user.logins', uins: [1, 2] as unknown as Uint32Array }))).toBe(
      'FRAME_MALFORMED',
    );
  });
});
