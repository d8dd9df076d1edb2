import { FILTER_REASONS } from '@herald/core/task';
import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex } from '../frame.test-util';
import type { PreprocessResult } from '../types';

const okSample: PreprocessResult = {
  kind: 'preprocess.result',
  ok: true,
  taskId: 42,
  epoch: 3,
  filteredListId: 'F',
  total: 10,
  kept: 7,
  removed: { blacklisted: 2, duplicate: 1 },
  units: [
    { start: 0, end: 4, executorId: 'e1' },
    { start: 4, end: 7, executorId: 'e2' },
  ],
};
const HEAD = '04 01 2a00000000000000 03000000'; // kind version taskId epoch
const OK_FIXTURE = [
  HEAD,
  '01', //                                 ok
  '0100 46', //                            filteredListId "F"
  '0a00000000000000', //                   total 10
  '0700000000000000', //                   kept 7
  '02', //                                 removedCount
  '01 0100000000000000', //                duplicate 1 (code 1 sorts first)
  '02 0200000000000000', //                blacklisted 2
  '02000000', //                           unitCount
  '0000000000000000 0400000000000000 0200 6531', // [0, 4) e1
  '0400000000000000 0700000000000000 0200 6532', // [4, 7) e2
].join(' ');

const errorSample: PreprocessResult = {
  kind: 'preprocess.result',
  ok: false,
  taskId: 42,
  epoch: 3,
  errorCode: 'LIST_EMPTY',
  message: 'no',
};
//                               ok errorCode "LIST_EMPTY"          message "no"
const ERROR_FIXTURE = `${HEAD} 00 0a00 4c4953545f454d505459 0200 6e6f`;

/** An ok frame with no units and the given removed entries (hex). */
const withRemoved = (count: string, entries: string) =>
  hex(`${HEAD} 01 0000 0000000000000000 0000000000000000 ${count} ${entries} 00000000`);

describe('preprocess.result v1', () => {
  it('matches the ok byte fixture', () => expectFixture({ encode, decode }, okSample, OK_FIXTURE));
  it('matches the error byte fixture', () => expectFixture({ encode, decode }, errorSample, ERROR_FIXTURE));

  it('uses reason codes 1..7 and round-trips every reason', () => {
    const codes = {
      duplicate: 1,
      blacklisted: 2,
      already_sent: 3,
      not_follower: 4,
      over_frequency: 5,
      targeting: 6,
      held_out: 7,
    };
    expect(Object.keys(codes).sort()).toEqual([...FILTER_REASONS].sort());
    for (const [reason, code] of Object.entries(codes)) {
      const frame = encode({ ...okSample, removed: { [reason]: 2 ** 40 } });
      expect(frame[35]).toBe(code); // first removed entry: after ok, "F", total, kept, removedCount
    }
    const removed = Object.fromEntries(FILTER_REASONS.map((reason, i) => [reason, 2 ** 40 + i]));
    const msg: PreprocessResult = { ...okSample, removed, units: [] };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('round-trips empty removed and units, and skips undefined counts', () => {
    const msg: PreprocessResult = { ...okSample, removed: {}, units: [] };
    expect(decode(encode(msg))).toEqual(msg);
    expect(decode(encode({ ...okSample, removed: { duplicate: undefined, targeting: 0 } }))).toEqual({
      ...okSample,
      removed: { targeting: 0 },
    });
  });

  it('rejects truncation, trailing bytes and other versions', () => {
    expectHeaderAndLengthChecks({ encode, decode }, OK_FIXTURE);
    expectHeaderAndLengthChecks({ encode, decode }, ERROR_FIXTURE);
  });

  it('rejects a bad ok bool', () => {
    expect(frameErrorCode(() => decode(hex(`${HEAD} 02 0000 0000`)))).toBe('FRAME_MALFORMED');
  });

  it('rejects unknown, repeated and out-of-order reason codes', () => {
    expect(decode(withRemoved('01', '06 0500000000000000'))).toMatchObject({ removed: { targeting: 5 } });
    for (const [count, entries] of [
      ['01', '00 0100000000000000'],
      ['01', '08 0100000000000000'],
      ['02', '01 0100000000000000 01 0100000000000000'],
      ['02', '02 0100000000000000 01 0100000000000000'],
    ]) {
      expect(frameErrorCode(() => decode(withRemoved(count!, entries!)))).toBe('FRAME_MALFORMED');
    }
  });

  it('rejects a unit count larger than the units present, quickly', () => {
    const frame = hex(`${HEAD} 01 0000 0000000000000000 0000000000000000 00 ffffffff`);
    expect(frameErrorCode(() => decode(frame))).toBe('FRAME_MALFORMED');
  });

  it('refuses to encode an unknown filter reason', () => {
    const bad = { ...okSample, removed: { spam: 1 } } as unknown as PreprocessResult;
    expect(frameErrorCode(() => encode(bad))).toBe('FRAME_MALFORMED');
  });
});
