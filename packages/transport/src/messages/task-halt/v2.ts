/**
 * task.halt, version 2: what this build sends. scheduler -> dispatcher: stop
 * streaming a task's units; dispatcher -> executor (its real-time inbox): drop
 * the task's batches still on the way under the halted epoch, when the halt
 * closes it. Version 1's content with the optional closesEpoch byte (v1.ts)
 * turned into a flags byte that is always there.
 *
 *   offset  size  field
 *   0       1     kind     u8 = 6
 *   1       1     version  u8 = 2
 *   2       8     taskId   u64 LE
 *   10      4     epoch    u32 LE
 *   14      1     flags    u8: bit 0 = closesEpoch; other bits 0
 *                 (end: 15 bytes)
 *
 * A set bit 0 decodes to `closesEpoch: true` and a clear one to no closesEpoch
 * at all, the message's only two forms (types.ts).
 */
import { FrameWriter, malformed, openFrame } from '../codec';
import type { TaskHalt } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

const CLOSES_EPOCH = 1;

export function encode(msg: TaskHalt): Buffer {
  if (msg.closesEpoch !== undefined && msg.closesEpoch !== true)
    throw malformed('task.halt: cannot encode: closesEpoch is neither true nor absent', { field: 'closesEpoch' });
  return new FrameWriter('task.halt', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u8(msg.closesEpoch === true ? CLOSES_EPOCH : 0, 'flags')
    .finish();
}

export function decode(frame: Buffer): TaskHalt {
  const r = openFrame(frame, 'task.halt', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const flags = r.u8('flags');
  if ((flags & ~CLOSES_EPOCH) !== 0)
    throw malformed(`task.halt: unknown flags 0x${flags.toString(16)}`, { kind: 'task.halt', field: 'flags' });
  r.end();
  return (flags & CLOSES_EPOCH) !== 0
    ? { kind: 'task.halt', taskId, epoch, closesEpoch: true }
    : { kind: 'task.halt', taskId, epoch };
}
