import { decode, encode } from './v2';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex, patched } from '../frame.test-util';
import type { UnitRun } from '../types';

const sample: UnitRun = {
  kind: 'unit.run',
  taskId: 2 ** 40,
  epoch: 1,
  unitNo: 2,
  filteredListId: 'F',
  start: 100,
  end: 200,
  from: 150,
  executorId: 'x',
  realtime: true,
};
const FIXTURE = [
  '05 02', //            kind version
  '0000000000010000', // taskId 2^40
  '01000000', //         epoch
  '02000000', //         unitNo
  '6400000000000000', // start 100
  'c800000000000000', // end 200
  '9600000000000000', // from 150
  '0100 46', //          filteredListId "F"
  '0100 78', //          executorId "x"
  '01', //               realtime
].join(' ');

describe('unit.run v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('matches the byte fixture with realtime false', () =>
    expectFixture({ encode, decode }, { ...sample, realtime: false }, FIXTURE.replace(/01$/, '00')));

  it('round-trips large offsets', () => {
    const msg: UnitRun = {
      ...sample,
      start: 2 ** 33,
      from: 2 ** 33 + 5,
      end: Number.MAX_SAFE_INTEGER,
      unitNo: 0xffffffff,
    };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('requires realtime: every truncation, the last byte included, is malformed; so are trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects a realtime flag other than 0 or 1', () => {
    const frame = hex(FIXTURE);
    expect(frameErrorCode(() => decode(patched(frame, frame.length - 1, [2])))).toBe('FRAME_MALFORMED');
  });
});
