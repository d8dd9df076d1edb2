import { decode, encode } from './v2';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode } from '../frame.test-util';
import type { ChannelDemand } from '../types';

const sample: ChannelDemand = { kind: 'channel.demand', executorId: 'e1', channel: 'kafka', demand: 2000, rate: 9500 };
const FIXTURE = [
  '0e 02', //               kind version
  '0200 6531', //           executorId "e1"
  '0500 6b61666b61', //     channel "kafka"
  'd0070000', //            demand 2000
  '1c250000', //            rate 9500
].join(' ');

describe('channel.demand v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips the extremes', () => {
    const msg: ChannelDemand = { ...sample, executorId: '执行-1', demand: 0xffffffff, rate: 0xffffffff };
    expect(decode(encode(msg))).toEqual(msg);
    expect(decode(encode({ ...sample, demand: 0, rate: 0 }))).toEqual({ ...sample, demand: 0, rate: 0 });
  });

  it('refuses to encode without a rate, or with one not a whole number', () => {
    expect(frameErrorCode(() => encode({ ...sample, rate: undefined }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, rate: 1.5 }))).toBe('FRAME_MALFORMED');
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));
});
