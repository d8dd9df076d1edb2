import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { UnitBatch } from '../types';

const sample: UnitBatch = {
  kind: 'unit.batch',
  taskId: 42,
  epoch: 3,
  unitNo: 1,
  offset: 1000,
  last: true,
  uins: new Uint32Array([1, 0x01020304, 0xffffffff]),
};
const FIXTURE = [
  '07 01 01 00', //       kind version flags(last) reserved
  '01000000', //          unitNo
  '03000000', //          epoch
  '03000000', //          count
  '2a00000000000000', //  taskId
  'e803000000000000', //  offset 1000
  '01000000 04030201 ffffffff', // uins
].join(' ');

/** The frame's bytes placed at a chosen byteOffset inside a larger ArrayBuffer. */
function at(byteOffset: number, frame: Buffer): Buffer {
  const view = Buffer.from(new ArrayBuffer(byteOffset + frame.length), byteOffset, frame.length);
  frame.copy(view);
  return view;
}

describe('unit.batch v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips an empty batch, a not-last batch and a million uins', () => {
    const empty: UnitBatch = { ...sample, last: false, uins: new Uint32Array(0) };
    expect(encode(empty)).toHaveLength(32);
    expect(decode(encode(empty))).toEqual(empty);
    const big: UnitBatch = {
      ...sample,
      offset: 2 ** 40,
      uins: Uint32Array.from({ length: 1_000_000 }, (_, i) => i * 7),
    };
    const { uins, ...header } = decode(encode(big));
    const { uins: sent, ...sentHeader } = big;
    expect(header).toEqual(sentHeader);
    expect(Buffer.from(uins.buffer, uins.byteOffset, uins.byteLength).equals(Buffer.from(sent.buffer))).toBe(true);
  });

  it('encodes from a subarray view of a larger array', () => {
    const all = new Uint32Array([9, 1, 0x01020304, 0xffffffff, 9]);
    expect(encode({ ...sample, uins: all.subarray(1, 4) }).toString('hex')).toBe(FIXTURE.replace(/\s+/g, ''));
  });

  it('returns a zero-copy view when the frame is 4-byte aligned, a copy otherwise', () => {
    const aligned = at(8, hex(FIXTURE));
    const view = decode(aligned).uins;
    expect(view.buffer).toBe(aligned.buffer);
    expect(view.byteOffset).toBe(8 + 32);
    const misaligned = at(3, hex(FIXTURE));
    const copy = decode(misaligned).uins;
    expect(copy.buffer).not.toBe(misaligned.buffer);
    expect(Array.from(copy)).toEqual([1, 0x01020304, 0xffffffff]);
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a count that does not match the body', () => {
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 12, [4, 0, 0, 0])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 12, [2, 0, 0, 0])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 12, [0xff, 0xff, 0xff, 0xff])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(hex(FIXTURE).subarray(0, 42)))).toBe('FRAME_MALFORMED');
  });

  it('rejects unknown flags, a non-zero reserved byte and unsafe u64s', () => {
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 2, [0x03])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 3, [1])))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 16, [0, 0, 0, 0, 0, 0, 0x20, 0])))).toBe(
      'FRAME_MALFORMED',
    );
    expect(frameErrorCode(() => decode(patched(hex(FIXTURE), 24, [0, 0, 0, 0, 0, 0, 0, 0x80])))).toBe(
      'FRAME_MALFORMED',
    );
  });

  it('refuses to encode values the header cannot carry', () => {
    expect(frameErrorCode(() => encode({ ...sample, taskId: 2 ** 53 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, epoch: -1 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, uins: [1, 2] as unknown as Uint32Array }))).toBe('FRAME_MALFORMED');
  });
});
