import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks } from '../frame.test-util';
import type { ChannelThrottled } from '../types';

const sample: ChannelThrottled = {
  kind: 'channel.throttled',
  executorId: 'e1',
  channel: 'webhook',
  holdMs: 2000,
  detail: '429',
};
const FIXTURE = [
  '0d 01', //                     kind version
  '0200 6531', //                 executorId "e1"
  '0700 776562686f6f6b', //       channel "webhook"
  'd0070000', //                  holdMs 2000
  '0300 343239', //               detail "429"
].join(' ');

describe('channel.throttled v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips the extremes', () => {
    const msg: ChannelThrottled = { ...sample, executorId: '执行-1', holdMs: 0xffffffff, detail: '' };
    expect(decode(encode(msg))).toEqual(msg);
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));
});
