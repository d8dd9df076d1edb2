/**
 * task.submitted, version 1. interface -> scheduler: a new task is stored.
 *
 *   offset  size  field
 *   0       1     kind     u8 = 1
 *   1       1     version  u8 = 1
 *   2       8     taskId   u64 LE
 *   10            (end: 10 bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { TaskSubmitted } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: TaskSubmitted): Buffer {
  return new FrameWriter('task.submitted', VERSION).u64(msg.taskId, 'taskId').finish();
}

export function decode(frame: Buffer): TaskSubmitted {
  const r = openFrame(frame, 'task.submitted', VERSION);
  const msg: TaskSubmitted = { kind: 'task.submitted', taskId: r.u64('taskId') };
  r.end();
  return msg;
}
