import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks } from '../frame.test-util';
import type { UnitReplan } from '../types';

const sample: UnitReplan = { kind: 'unit.replan', taskId: 2 ** 40, epoch: 3, unitNo: 2, from: 'a', to: 'bc' };
const FIXTURE = [
  '0c 01', //            kind version
  '0000000000010000', // taskId 2^40
  '03000000', //         epoch
  '02000000', //         unitNo
  '0100 61', //          from "a"
  '0200 6263', //        to "bc"
].join(' ');

describe('unit.replan v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips', () => {
    const msg: UnitReplan = {
      ...sample,
      taskId: Number.MAX_SAFE_INTEGER,
      unitNo: 0xffffffff,
      from: 'executor-1',
      to: 'executor-2',
    };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));
});
