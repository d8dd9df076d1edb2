import { decode, encode } from './v2';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { TaskHalt } from '../types';

const sample: TaskHalt = { kind: 'task.halt', taskId: 42, epoch: 0xfffffffe };
//                  kind version taskId           epoch    flags
const FIXTURE = '06 02 2a00000000000000 feffffff 00';
const closing: TaskHalt = { ...sample, closesEpoch: true };
const CLOSING_FIXTURE = '06 02 2a00000000000000 feffffff 01';

describe('task.halt v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('matches the byte fixture with closesEpoch, flag bit 0', () =>
    expectFixture({ encode, decode }, closing, CLOSING_FIXTURE));

  it('round-trips', () => {
    const msg: TaskHalt = { kind: 'task.halt', taskId: Number.MAX_SAFE_INTEGER, epoch: 0 };
    expect(decode(encode(msg))).toEqual(msg);
    expect(decode(encode({ ...msg, closesEpoch: true }))).toEqual({ ...msg, closesEpoch: true });
  });

  it('requires the flags byte: every truncation is malformed, and so are trailing bytes and other versions', () => {
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE);
    expectHeaderAndLengthChecks({ encode, decode }, CLOSING_FIXTURE);
  });

  it('refuses unknown flags, and to encode a closesEpoch that is neither true nor absent', () => {
    for (const flags of [2, 3, 0x80, 0xff])
      expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 14, [flags])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, closesEpoch: false as unknown as true }))).toBe('FRAME_MALFORMED');
  });
});
