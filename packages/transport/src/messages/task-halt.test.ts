import { decode, encode } from './task-halt';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode } from './frame.test-util';
import type { TaskHalt } from './types';

const sample: TaskHalt = { kind: 'task.halt', taskId: 42, epoch: 0xfffffffe };
//                  kind version taskId           epoch
const FIXTURE = '06 01 2a00000000000000 feffffff';

describe('task.halt v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips', () => {
    const msg: TaskHalt = { kind: 'task.halt', taskId: Number.MAX_SAFE_INTEGER, epoch: 0 };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('rejects truncation, trailing bytes and other versions', () => expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('refuses to encode an epoch outside u32', () => {
    expect(frameErrorCode(() => encode({ ...sample, epoch: 2 ** 32 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, epoch: -1 }))).toBe('FRAME_MALFORMED');
  });
});
