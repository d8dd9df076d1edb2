import { SPEED_DEFAULT, decode, encode } from './v1';
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
const FIXTURE = '03 01 2a00000000000000 03000000 efbeadde 0200 4c31 0600 6163632dc3a9 50c30000';
const HEAD = '03 01 2a00000000000000 03000000 efbeadde';

describe('preprocess.request v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('round-trips empty, long, BOM-led and astral strings', () => {
    for (const listId of ['', 'x'.repeat(0xffff), '\ufeffbom', 'emoji \u{1f600}', 'é'.repeat(0x7fff)]) {
      const msg = { ...sample, listId };
      expect(decode(encode(msg))).toEqual(msg);
    }
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE, [hex(FIXTURE).length - 4]));

  it('decodes the shape before speed (nothing after accountId) as speed 0, none', () => {
    expect(SPEED_DEFAULT).toBe(0);
    expect(decode(hex(`${HEAD} 0200 4c31 0600 6163632dc3a9`))).toEqual({ ...sample, speed: 0 });
  });

  it('rejects a string length beyond the end of the frame', () => {
    expect(frameErrorCode(() => decode(hex(`${HEAD} 0300 4c31`)))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => decode(hex(`${HEAD} 0200 4c31 ffff 61`)))).toBe('FRAME_MALFORMED');
  });

  it('rejects invalid and overlong UTF-8', () => {
    for (const bytes of ['ff', 'c0af', 'e080af', 'eda080', 'c3']) {
      const length = (bytes.length / 2).toString(16).padStart(2, '0');
      expect(frameErrorCode(() => decode(hex(`${HEAD} ${length}00 ${bytes} 0000 00000000`)))).toBe('FRAME_MALFORMED');
    }
  });

  it('refuses to encode strings the wire cannot carry', () => {
    expect(frameErrorCode(() => encode({ ...sample, listId: 'x'.repeat(0x10000) }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, accountId: 'half \ud800 pair' }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, contentCrc: 2 ** 32 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, speed: 2 ** 32 }))).toBe('FRAME_MALFORMED');
    expect(frameErrorCode(() => encode({ ...sample, speed: -1 }))).toBe('FRAME_MALFORMED');
  });

  it('carries no speed as 0 and the largest u32 as is', () => {
    for (const speed of [0, 1, 0xffffffff]) expect(decode(encode({ ...sample, speed }))).toEqual({ ...sample, speed });
  });

  it('rejects a frame cut inside the speed', () => {
    expect(frameErrorCode(() => decode(hex(`${HEAD} 0200 4c31 0600 6163632dc3a9 50c300`)))).toBe('FRAME_MALFORMED');
  });
});
