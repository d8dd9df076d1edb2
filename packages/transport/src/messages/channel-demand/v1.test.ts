import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks } from '../frame.test-util';
import type { ChannelDemand } from '../types';

const sample: ChannelDemand = { kind: 'channel.demand', executorId: 'e1', channel: 'kafka', demand: 2000 };
const FIXTURE = [
  '0e 01', //               kind version
  '0200 6531', //           executorId "e1"
  '0500 6b61666b61', //     channel "kafka"
  'd0070000', //            demand 2000
].join(' ');

describe('channel.demand v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips the extremes', () => {
    const msg: ChannelDemand = { ...sample, executorId: '执行-1', demand: 0xffffffff };
    expect(decode(encode(msg))).toEqual(msg);
    expect(decode(encode({ ...sample, demand: 0 }))).toEqual({ ...sample, demand: 0 });
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));
});
