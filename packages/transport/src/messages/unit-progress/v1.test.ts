import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { UnitProgressMessage } from '../types';

const sample: UnitProgressMessage = {
  kind: 'unit.progress',
  taskId: 42,
  epoch: 3,
  unitNo: 1,
  from: 1000,
  to: 1003,
  delivered: 2,
  offline: 1,
  done: true,
};
const FIXTURE = [
  '08 01', //            kind version
  '2a00000000000000', // taskId 42
  '03000000', //         epoch
  '01000000', //         unitNo
  'e803000000000000', // from 1000
  'eb03000000000000', // to 1003
  '02000000', //         delivered
  '01000000', //         offline
  '01', //               done
].join(' ');

describe('unit.progress v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips done = false', () => {
    const msg = { ...sample, done: false, delivered: 0xffffffff };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a bool other than 0 or 1', () => {
    for (const value of [2, 0x80, 0xff]) {
      expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 42, [value])))).toBe('FRAME_MALFORMED');
    }
  });

  it('refuses to encode a non-boolean done or a count outside u32', () => {
    expect(frameErrorCode(() => encode({ ...sample, done: 1 as unknown as boolean }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, offline: 2 ** 32 }))).toBe('FRAME_MALFORMED');
  });
});
