import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { TaskHalt } from '../types';

const sample: TaskHalt = { kind: 'task.halt', taskId: 42, epoch: 0xfffffffe };
//                  kind version taskId           epoch
const FIXTURE = '06 01 2a00000000000000 feffffff';
const closing: TaskHalt = { ...sample, closesEpoch: true };
//                          kind version taskId           epoch    closesEpoch
const CLOSING_FIXTURE = '06 01 2a00000000000000 feffffff 01';

describe('task.halt v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('matches the byte fixture with closesEpoch, one byte appended', () =>
    expectFixture({ encode, decode }, closing, CLOSING_FIXTURE));

  it('round-trips', () => {
    const msg: TaskHalt = { kind: 'task.halt', taskId: Number.MAX_SAFE_INTEGER, epoch: 0 };
    expect(decode(encode(msg))).toEqual(msg);
    expect(decode(encode({ ...msg, closesEpoch: true }))).toEqual({ ...msg, closesEpoch: true });
  });

  it('rejects truncation, trailing bytes and other versions', () => {
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE); // the trailing byte it tries is a 0: not a closesEpoch
    // With closesEpoch: cut short of the older form, or longer than the grammar. (Cut to 14 bytes it is the older form.)
    const frame = hex(CLOSING_FIXTURE);
    for (let length = 0; length < frame.length - 1; length++)
      expect([length, frameErrorCode(() => decode(frame.subarray(0, length)))]).toEqual([length, 'FRAME_MALFORMED']);
    expect(frameErrorCode(() => decode(Buffer.concat([frame, Buffer.from([1])])))).toBe('FRAME_MALFORMED');
  });

  it('refuses a closesEpoch byte other than 1 (absent is the only false), on both sides', () => {
    expect(frameErrorCode(() => decode(patched(hex(CLOSING_FIXTURE), 14, [0])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(CLOSING_FIXTURE), 14, [2])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, closesEpoch: false as unknown as true }))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode an epoch outside u32', () => {
    expect(frameErrorCode(() => encode({ ...sample, epoch: 2 ** 32 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, epoch: -1 }))).toBe('FRAME_MALFORMED');
  });
});
