import { decode, encode } from './v2';
import { encode as encodeV1 } from './v1';
import { frameErrorCode } from '../frame.test-util';
import { codec } from './index';
import type { PreprocessResult } from '../types';

const ok: PreprocessResult = {
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
  it('round-trips a canary sample, and no sample as none', () => {
    expect(decode(encode(ok))).toEqual(ok);
    const { sample: _none, ...plain } = ok as Extract<PreprocessResult, { ok: true }>;
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

  it('appends the sample to version 1 grammar: a frame cut before it is malformed', () => {
    const frame = encode(ok);
    expect(frame.length).toBe(encodeV1(ok).length + 8);
    expect(frameErrorCode(() => decode(frame.subarray(0, frame.length - 1)))).toBe('FRAME_MALFORMED');
  });

  it('reads a version 1 frame as a result without a canary', () => {
    const { sample: _none, ...plain } = ok as Extract<PreprocessResult, { ok: true }>;
    expect(codec.decode(encodeV1(ok))).toEqual(plain);
  });
});
