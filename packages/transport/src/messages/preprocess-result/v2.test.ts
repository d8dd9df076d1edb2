import { decode, encode } from './v2';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { PreprocessResult } from '../types';

const sample: PreprocessResult = {
  kind: 'preprocess.result',
  ok: true,
  taskId: 42,
  epoch: 3,
  filteredListId: 'F',
  total: 10,
  kept: 7,
  removed: { duplicate: 1 },
  units: [{ start: 0, end: 7, executorId: 'e1' }],
  groups: [
    { offsetMinutes: -300, releaseAt: 1000, start: 0, end: 4, skipped: false },
    { offsetMinutes: 330, releaseAt: 2000, start: 4, end: 7, skipped: true },
  ],
};
const FIXTURE = [
  '04 02 2a00000000000000 03000000 01', // kind version taskId epoch ok
  '0100 46', //                            filteredListId "F"
  '0a00000000000000 0700000000000000', //  total 10, kept 7
  '01 01 0100000000000000', //             removedCount 1: duplicate 1
  '01000000', //                           unitCount
  '0000000000000000 0700000000000000 0200 6531', // [0, 7) e1
  '02', //                                 groupCount
  'e803000000000000 d4020000 0000000000000000 0400000000000000 00', // 1000, -300 + 1024, [0, 4), sent
  'd007000000000000 4a050000 0400000000000000 0700000000000000 01', // 2000, 330 + 1024, [4, 7), skipped
].join(' ');

describe('preprocess.result v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('decodes a result without groups as one without the field', () => {
    const { groups: _, ...plain } = sample;
    expect(decode(encode(plain))).toEqual(plain);
  });

  it('every truncation is malformed; so are trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a group that ends before it starts', () => {
    const frame = hex(FIXTURE);
    // The second group's end (its last 9 bytes: end u64, skipped) set to 3, below its start 4.
    const at = frame.length - 9;
    expect(frameErrorCode(() => decode(patched(frame, at, [3, 0, 0, 0, 0, 0, 0, 0])))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode an offset beyond ±1024 minutes', () =>
    expect(() =>
      encode({ ...sample, groups: [{ offsetMinutes: 2000, releaseAt: 0, start: 0, end: 0, skipped: false }] }),
    ).toThrow(/offset/));
});
