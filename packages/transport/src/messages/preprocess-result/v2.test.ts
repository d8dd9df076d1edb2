import { decode, encode } from './v2';
import { encode as encodeV1 } from './v1';
import { codec } from './index';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { PreprocessResult } from '../types';

type Ok = Extract<PreprocessResult, { ok: true }>;

const sample: Ok = {
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
  '0000000000000000', //                   sample 0: no canary
].join(' ');

/** A canary task's result: no groups (a canary cannot be local-time), a sample of 10. */
const canary: Ok = {
  kind: 'preprocess.result',
  ok: true,
  taskId: 9,
  epoch: 2,
  filteredListId: 'f-9-2',
  total: 1000,
  kept: 990,
  removed: { duplicate: 4, held_out: 6 },
  units: [
    { start: 0, end: 10, executorId: 'executor-1' },
    { start: 10, end: 990, executorId: 'executor-2' },
  ],
  sample: 10,
};

describe('preprocess.result v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('decodes a result without groups as one without the field', () => {
    const { groups: _, ...plain } = sample;
    expect(decode(encode(plain))).toEqual(plain);
  });

  it('round-trips a canary sample, and a sample of 0 as none', () => {
    expect(decode(encode(canary))).toEqual(canary);
    const { sample: _none, ...plain } = canary;
    expect(decode(encode(plain))).toEqual(plain);
    const failed: PreprocessResult = {
      kind: 'preprocess.result',
      ok: false,
      taskId: 1,
      epoch: 1,
      errorCode: 'X',
      message: 'm',
    };
    expect(decode(encode(failed))).toEqual(failed);
  });

  it('carries both parts when given both: groups, then the sample', () => {
    const both: Ok = { ...sample, sample: 3 };
    expect(decode(encode(both))).toEqual(both);
    expect(encode(both).subarray(-8)).toEqual(hex('0300000000000000'));
  });

  it('every truncation is malformed; so are trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a group that ends before it starts', () => {
    const frame = hex(FIXTURE);
    // The second group's end (the 9 bytes before the 8-byte sample: end u64, skipped) set to 3, below its start 4.
    const at = frame.length - 8 - 9;
    expect(frameErrorCode(() => decode(patched(frame, at, [3, 0, 0, 0, 0, 0, 0, 0])))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode an offset beyond ±1024 minutes', () =>
    expect(() =>
      encode({ ...sample, groups: [{ offsetMinutes: 2000, releaseAt: 0, start: 0, end: 0, skipped: false }] }),
    ).toThrow(/offset/));

  it('reads a version 1 frame as a result with neither groups nor a canary', () => {
    const { sample: _none, ...plain } = canary;
    expect(codec.decode(encodeV1(canary))).toEqual(plain);
    const { groups: _g, ...noGroups } = sample;
    expect(codec.decode(encodeV1(sample))).toEqual(noGroups);
  });
});
