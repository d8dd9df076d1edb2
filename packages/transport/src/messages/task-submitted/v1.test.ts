import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex } from '../frame.test-util';
import type { TaskSubmitted } from '../types';

const sample: TaskSubmitted = { kind: 'task.submitted', taskId: 0x0102030405 };
//                  kind version taskId
const FIXTURE = '01 01 0504030201000000';

describe('task.submitted v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips 0 and Number.MAX_SAFE_INTEGER', () => {
    for (const taskId of [0, 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      expect(decode(encode({ kind: 'task.submitted', taskId }))).toEqual({ kind: 'task.submitted', taskId });
    }
    expect(encode({ kind: 'task.submitted', taskId: Number.MAX_SAFE_INTEGER }).toString('hex')).toBe(
      '0101ffffffffffff1f00',
    );
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a u64 above Number.MAX_SAFE_INTEGER', () => {
    expect(frameErrorCode(() => decode(hex('01 01 0000000000002000')))).toBe('FRAME_MALFORMED'); // 2^53
    expect(frameErrorCode(() => decode(hex('01 01 ffffffffffffffff')))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode ids the wire cannot carry', () => {
    for (const taskId of [-1, 1.5, 2 ** 53, NaN, Infinity]) {
      expect(frameErrorCode(() => encode({ kind: 'task.submitted', taskId }))).toBe('FRAME_MALFORMED');
    }
  });
});
