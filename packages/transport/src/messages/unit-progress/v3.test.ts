import { decode, encode } from './v3';
import { encode as encodeV2 } from './v2';
import { codec } from './index';
import { expectFixture, expectHeaderAndLengthChecks } from '../frame.test-util';
import type { UnitProgressMessage } from '../types';

const held: UnitProgressMessage = {
  kind: 'unit.progress',
  taskId: 42,
  epoch: 3,
  unitNo: 1,
  from: 1000,
  to: 1000,
  delivered: 0,
  offline: 0,
  done: false,
  quietUntil: 1792998000000,
};
const FIXTURE = [
  '08 03', //            kind version
  '2a00000000000000', // taskId 42
  '03000000', //         epoch
  '01000000', //         unitNo
  'e803000000000000', // from 1000
  'e803000000000000', // to 1000
  '00000000', //         delivered
  '00000000', //         offline
  '00', //               done
  '00', //               reasons
  '00', //               channel: sending
  '0000', //             reason ""
  '00', //               refused: no
  '0000', //             refusal ""
  '80450277a1010000', // quietUntil 1792998000000
].join(' ');

describe('unit.progress v3', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, held, FIXTURE));

  it('reads quietUntil 0 as no hold, the rest as version 2 has it', () => {
    const { quietUntil: _, ...plain } = { ...held, to: 1003, delivered: 2, offline: 1, deadLetters: { gone: 1 } };
    expect(decode(encode(plain))).toEqual(plain);
    expect(encode(plain).subarray(2, -8)).toEqual(encodeV2(plain).subarray(2));
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('is what a hold is sent as, whatever version this build sends otherwise', () => {
    expect(codec.sends).toBe(1);
    expect(codec.encode(held)[1]).toBe(3);
    expect(codec.decode(codec.encode(held))).toEqual(held);
    const { quietUntil: _, ...plain } = held;
    expect(codec.encode(plain)[1]).toBe(1);
  });
});
