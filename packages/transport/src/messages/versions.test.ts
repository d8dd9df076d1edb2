import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FrameError } from '@herald/core';
import { WIRE_VERSIONS, decodeMessage, encodeMessageAs } from './index';
import { hex } from './frame.test-util';
import type { MessageKind } from './types';

/** Which version of each kind this build sends and reads: the table in docs/operations.md, "Wire versions". */
const EXPECTED: Record<MessageKind, { sends: number; accepts: number[] }> = {
  'task.submitted': { sends: 1, accepts: [1] },
  'task.command': { sends: 1, accepts: [1] },
  'preprocess.request': { sends: 2, accepts: [1, 2] },
  'preprocess.result': { sends: 2, accepts: [1, 2] },
  'unit.run': { sends: 2, accepts: [1, 2] },
  'task.halt': { sends: 2, accepts: [1, 2] },
  'unit.batch': { sends: 1, accepts: [1] },
  'unit.progress': { sends: 1, accepts: [1, 2, 3] },
  'user.logins': { sends: 1, accepts: [1] },
  apta: { sends: 1, accepts: [1] },
  'host.load': { sends: 1, accepts: [1] },
  'unit.replan': { sends: 1, accepts: [1] },
  'channel.throttled': { sends: 1, accepts: [1] },
  'channel.demand': { sends: 2, accepts: [1, 2] },
};

function thrown(fn: () => unknown): FrameError {
  try {
    fn();
  } catch (error) {
    if (error instanceof FrameError) return error;
    throw error;
  }
  throw new Error('expected a FrameError, nothing was thrown');
}

describe('wire versions', () => {
  it('sends and reads the versions the operations guide lists', () => {
    expect(WIRE_VERSIONS).toEqual(EXPECTED);
  });

  it('matches the table in docs/operations.md, "Wire versions"', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/operations.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z.]+)` \| (\d+) \| ([\d, ]+) \|/gm)].map(([, kind, sends, accepts]) => [
      kind,
      { sends: Number(sends), accepts: accepts!.split(', ').map(Number) },
    ]);
    expect(Object.fromEntries(rows)).toEqual(WIRE_VERSIONS);
  });

  it('refuses a version it does not read with FRAME_UNSUPPORTED_VERSION naming it and the ones it reads', () => {
    const error = thrown(() => decodeMessage(hex('05 03 0000')));
    expect([error.code, error.details]).toEqual([
      'FRAME_UNSUPPORTED_VERSION',
      { kind: 'unit.run', version: 3, accepts: [1, 2] },
    ]);
    expect(error.message).toBe('unit.run: version 3 is not supported (this build reads 1, 2)');
    expect(thrown(() => decodeMessage(hex('01 00 2a00000000000000'))).details).toEqual({
      kind: 'task.submitted',
      version: 0,
      accepts: [1],
    });
  });

  it('writes an older version only when it still reads it', () => {
    const halt = { kind: 'task.halt' as const, taskId: 1, epoch: 2 };
    expect(encodeMessageAs(halt, 1).toString('hex')).toBe('06010100000000000000' + '02000000');
    expect(thrown(() => encodeMessageAs(halt, 3)).details).toEqual({ kind: 'task.halt', version: 3, accepts: [1, 2] });
  });
});
