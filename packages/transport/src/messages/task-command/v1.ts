/**
 * task.command, version 1. interface -> scheduler: an operator acts on a task.
 *
 *   offset  size  field
 *   0       1     kind     u8 = 2
 *   1       1     version  u8 = 1
 *   2       8     taskId   u64 LE
 *   10      1     command  u8: 1 cancel, 2 pause, 3 resume (any other value is malformed)
 *   11            (end: 11 bytes)
 */
import { FrameWriter, malformed, openFrame } from '../codec';
import type { TaskCommand, TaskCommandName } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

const CODES: Record<TaskCommandName, number> = { cancel: 1, pause: 2, resume: 3 };
const NAMES = new Map(Object.entries(CODES).map(([name, code]) => [code, name as TaskCommandName]));

export function encode(msg: TaskCommand): Buffer {
  const code = Object.hasOwn(CODES, msg.command) ? CODES[msg.command] : undefined;
  if (code === undefined)
    throw malformed(`task.command: cannot encode: unknown command ${JSON.stringify(msg.command)}`);
  return new FrameWriter('task.command', VERSION).u64(msg.taskId, 'taskId').u8(code, 'command').finish();
}

export function decode(frame: Buffer): TaskCommand {
  const r = openFrame(frame, 'task.command', VERSION);
  const taskId = r.u64('taskId');
  const code = r.u8('command');
  const command = NAMES.get(code);
  if (command === undefined) throw malformed(`task.command: unknown command code ${code}`, { code });
  r.end();
  return { kind: 'task.command', taskId, command };
}
