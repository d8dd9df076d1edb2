/**
 * task.halt, version 1. scheduler -> dispatcher: stop streaming a task's units.
 *
 *   offset  size  field
 *   0       1     kind     u8 = 6
 *   1       1     version  u8 = 1
 *   2       8     taskId   u64 LE
 *   10      4     epoch    u32 LE
 *   14            (end: 14 bytes)
 */
import { FrameWriter, openFrame } from './codec';
import type { TaskHalt } from './types';

export function encode(msg: TaskHalt): Buffer {
  return new FrameWriter('task.halt').u64(msg.taskId, 'taskId').u32(msg.epoch, 'epoch').finish();
}

export function decode(frame: Buffer): TaskHalt {
  const r = openFrame(frame, 'task.halt');
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  r.end();
  return { kind: 'task.halt', taskId, epoch };
}
