/** Shared by the message specs; excluded from the build. */
import { FrameError } from '@herald/core';

export interface Codec<M> {
  encode(msg: M): Buffer;
  decode(frame: Buffer): M;
}

/** A hex fixture written with spaces between fields, as bytes. */
export function hex(fixture: string): Buffer {
  return Buffer.from(fixture.replace(/\s+/g, ''), 'hex');
}

/** Runs fn and returns the FrameError code it threw; fails on anything else. */
export function frameErrorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof FrameError) return error.code;
    throw error;
  }
  throw new Error('expected a FrameError, nothing was thrown');
}

/** encode(msg) is exactly the fixture and decode(fixture) is msg. */
export function expectFixture<M>(codec: Codec<M>, msg: M, fixture: string): void {
  expect(codec.encode(msg).toString('hex')).toBe(fixture.replace(/\s+/g, ''));
  expect(codec.decode(hex(fixture))).toEqual(msg);
}

/**
 * What every kind must reject: each truncation, a trailing byte, every version
 * but the fixture's own (0, 1, 2, 3 and 255). `olderShapeLengths`: lengths at
 * which a version 1 frame cut short is the shape it had before a field was
 * appended, which decodes (the spec checks what to).
 */
export function expectHeaderAndLengthChecks<M>(
  codec: Codec<M>,
  fixture: string,
  olderShapeLengths: readonly number[] = [],
): void {
  const frame = hex(fixture);
  for (let length = 0; length < frame.length; length++) {
    if (olderShapeLengths.includes(length)) continue;
    expect([length, frameErrorCode(() => codec.decode(frame.subarray(0, length)))]).toEqual([
      length,
      'FRAME_MALFORMED',
    ]);
  }
  expect(frameErrorCode(() => codec.decode(Buffer.concat([frame, Buffer.from([0])])))).toBe('FRAME_MALFORMED');
  for (const version of [0, 1, 2, 3, 255].filter((v) => v !== frame[1])) {
    const other = Buffer.from(frame);
    other[1] = version;
    expect(frameErrorCode(() => codec.decode(other))).toBe('FRAME_UNSUPPORTED_VERSION');
  }
  const wrongKind = Buffer.from(frame);
  wrongKind[0] = 99;
  expect(frameErrorCode(() => codec.decode(wrongKind))).toBe('FRAME_MALFORMED');
}

/** A copy of the frame with bytes written at an offset. */
export function patched(frame: Buffer, offset: number, bytes: number[]): Buffer {
  const copy = Buffer.from(frame);
  copy.set(bytes, offset);
  return copy;
}
