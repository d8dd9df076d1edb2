import { decode, encode } from './v2';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex } from '../frame.test-util';
import type { PreprocessRequest } from '../types';

const sample: PreprocessRequest = {
  kind: 'preprocess.request',
  taskId: 42,
  epoch: 3,
  listId: 'L1',
  accountId: 'acc-é',
  contentCrc: 0xdeadbeef,
  speed: 50_000,
};
//               kind version taskId           epoch    contentCrc listId    accountId ("acc-é")  speed (50000)
const FIXTURE = '03 02 2a00000000000000 03000000 efbeadde 0200 4c31 0600 6163632dc3a9 50c30000';

describe('preprocess.request v2', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('carries no speed as 0 and the largest u32 as is', () => {
    for (const speed of [0, 1, 0xffffffff]) expect(decode(encode({ ...sample, speed }))).toEqual({ ...sample, speed });
  });

  it('requires speed: every truncation, the whole field cut included, is malformed; so are trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('refuses to encode a speed outside u32', () => {
    expect(frameErrorCode(() => encode({ ...sample, speed: 2 ** 32 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, speed: -1 }))).toBe('FRAME_MALFORMED');
  });

  it('rejects invalid UTF-8 in the strings', () => {
    expect(frameErrorCode(() => decode(hex('03 02 2a00000000000000 03000000 efbeadde 0100 ff 0000 00000000')))).toBe(
      'FRAME_MALFORMED',
    );
  });
});
