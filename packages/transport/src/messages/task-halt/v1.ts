/**
 * task.halt, version 1: what builds before version 2 send. scheduler ->
 * dispatcher: stop streaming a task's units; dispatcher -> executor (its
 * real-time inbox): drop the task's batches still on the way under the halted
 * epoch, when the halt closes it.
 *
 *   offset  size  field
 *   0       1     kind         u8 = 6
 *   1       1     version      u8 = 1
 *   2       8     taskId       u64 LE
 *   10      4     epoch        u32 LE
 *   14      1     closesEpoch  u8 = 1, optional: present only when true
 *                 (end: 14 bytes, or 15 with closesEpoch)
 *
 * `closesEpoch` was appended on 2026-11-22 without a version bump: a frame
 * without it is the older form and still decodes (closesEpoch absent), and a
 * scheduler writes the byte only when it is true. A dispatcher built before it
 * refuses the 15-byte form, so upgrade dispatchers before schedulers, as for
 * unit.run's `realtime` (docs/operations.md); and executors before
 * dispatchers, or an older executor logs each forwarded halt as a message not
 * meant for it (and drops it, which only costs the shortcut). Version 2
 * (v2.ts) always carries a flags byte, so the version byte alone says which
 * grammar a frame has.
 */
import { FrameWriter, malformed, openFrame } from '../codec';
import type { TaskHalt } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: TaskHalt): Buffer {
  const writer = new FrameWriter('task.halt', VERSION).u64(msg.taskId, 'taskId').u32(msg.epoch, 'epoch');
  if (msg.closesEpoch !== undefined && msg.closesEpoch !== true)
    throw malformed('task.halt: cannot encode: closesEpoch is neither true nor absent', { field: 'closesEpoch' });
  if (msg.closesEpoch === true) writer.u8(1, 'closesEpoch');
  return writer.finish();
}

export function decode(frame: Buffer): TaskHalt {
  const r = openFrame(frame, 'task.halt', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  // Canonical: the byte is there only when true, so a 0 is malformed (it would not round-trip).
  const closesEpoch = r.more() ? r.u8('closesEpoch') : undefined;
  if (closesEpoch !== undefined && closesEpoch !== 1)
    throw malformed(`task.halt: closesEpoch is ${closesEpoch}, expected 1 or absent`, {
      kind: 'task.halt',
      field: 'closesEpoch',
    });
  r.end();
  return closesEpoch === 1
    ? { kind: 'task.halt', taskId, epoch, closesEpoch: true }
    : { kind: 'task.halt', taskId, epoch };
}
