import { decode, encode } from './v1';
import { expectFixture, expectHeaderAndLengthChecks, frameErrorCode, hex } from '../frame.test-util';
import type { TaskCommand, TaskCommandName } from '../types';

const sample: TaskCommand = { kind: 'task.command', taskId: 7, command: 'pause' };
//                  kind version taskId           command
const FIXTURE = '02 01 0700000000000000 02';

describe('task.command v1', () => {
  it('matches the byte fixture', () => expectFixture({ encode, decode }, sample, FIXTURE));

  it('uses command codes 1 cancel, 2 pause, 3 resume', () => {
    const codes: Record<TaskCommandName, number> = { cancel: 1, pause: 2, resume: 3 };
    for (const [command, code] of Object.entries(codes) as [TaskCommandName, number][]) {
      const frame = encode({ kind: 'task.command', taskId: 1, command });
      expect(frame[10]).toBe(code);
      expect(decode(frame)).toEqual({ kind: 'task.command', taskId: 1, command });
    }
  });

  it('rejects truncation, trailing bytes and other versions', () =>
    expectHeaderAndLengthChecks({ encode, decode }, FIXTURE));

  it('rejects unknown command codes', () => {
    for (const code of ['00', '04', 'ff']) {
      expect(frameErrorCode(() => decode(hex(`02 01 0700000000000000 ${code}`)))).toBe('FRAME_MALFORMED');
    }
  });

  it('refuses to encode an unknown command', () => {
    const bad = { kind: 'task.command', taskId: 1, command: 'explode' } as unknown as TaskCommand;
    expect(frameErrorCode(() => encode(bad))).toBe('FRAME_MALFORMED');
    const inherited = { kind: 'task.command', taskId: 1, command: 'toString' } as unknown as TaskCommand;
    expect(frameErrorCode(() => encode(inherited))).toBe('FRAME_MALFORMED');
  });
});
