import { decode, encode } from './v2';
import { codec } from './index';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { UnitProgressMessage } from '../types';

const sample: UnitProgressMessage = {
  kind: 'unit.progress',
  taskId: 42,
  epoch: 3,
  unitNo: 1,
  from: 1000,
  to: 1003,
  delivered: 1,
  offline: 1,
  done: true,
  deadLetters: { gone: 1 },
  channel: { state: 'throttled', reason: 'ra' },
};
const FIXTURE = [
  '08 02', //            kind version
  '2a00000000000000', // taskId 42
  '03000000', //         epoch
  '01000000', //         unitNo
  'e803000000000000', // from 1000
  'eb03000000000000', // to 1003
  '01000000', //         delivered
  '01000000', //         offline
  '01', //               done
  '01', //               reasons
  '0400 676f6e65', //    "gone"
  '01000000', //         its count
  '01', //               channel: throttled
  '0200 7261', //        "ra"
  '00', //               refused: no
  '0000', //             refusal ""
].join(' ');

describe('unit.progress v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips a refusal, an unavailable channel and no dead letters', () => {
    const refused = { ...sample, deadLetters: { batch_refused: 3 }, refused: 'HTTP 400: bad payload' };
    expect(decode(encode(refused))).toEqual(refused);
    const held = { ...sample, to: sample.from, channel: { state: 'unavailable' as const, reason: 'breaker open' } };
    expect(decode(encode({ ...held, deadLetters: {} }))).toEqual({ ...held, deadLetters: undefined });
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a channel state other than 0, 1, 2 and a reason that is not a token', () => {
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 54, [3])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 46, [0x47])))).toBe('FRAME_MALFORMED'); // "Gone"
  });

  it('refuses to encode a reason that is not a token, or more than 64 reasons', () => {
    expect(frameErrorCode(() => encode({ ...sample, deadLetters: { 'Bad Reason': 1 } }))).toBe('FRAME_MALFORMED');
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`r${i}`, 1]));
    expect(frameErrorCode(() => encode({ ...sample, deadLetters: many }))).toBe('FRAME_MALFORMED');
  });

  it('is read beside version 1, which this release still sends', () => {
    expect(codec.accepts).toEqual([1, 2, 3]);
    expect(codec.sends).toBe(1);
    expect(codec.decode(encode(sample))).toEqual(sample);
  });
});
