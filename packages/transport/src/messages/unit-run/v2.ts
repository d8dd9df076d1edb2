/**
 * unit.run, version 2: what this build sends. scheduler -> dispatcher: stream
 * one unit's recipients [from, end) of the filtered list to an executor.
 * Version 1's grammar with `realtime` required (v1.ts: it was optional there).
 *
 *   offset  size  field
 *   0       1     kind            u8 = 5
 *   1       1     version         u8 = 2
 *   2       8     taskId          u64 LE
 *   10      4     epoch           u32 LE
 *   14      4     unitNo          u32 LE
 *   18      8     start           u64 LE
 *   26      8     end             u64 LE
 *   34      8     from            u64 LE
 *   42      2+n   filteredListId  str (u16 LE length n, then n bytes UTF-8)
 *   ..      2+m   executorId      str
 *   ..      1     realtime        bool (u8 0/1): stream to the executor's real-time inbox
 *                 (end: 47 + n + m bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { UnitRun } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

export function encode(msg: UnitRun): Buffer {
  return new FrameWriter('unit.run', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u32(msg.unitNo, 'unitNo')
    .u64(msg.start, 'start')
    .u64(msg.end, 'end')
    .u64(msg.from, 'from')
    .str(msg.filteredListId, 'filteredListId')
    .str(msg.executorId, 'executorId')
    .bool(msg.realtime, 'realtime')
    .finish();
}

export function decode(frame: Buffer): UnitRun {
  const r = openFrame(frame, 'unit.run', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const unitNo = r.u32('unitNo');
  const start = r.u64('start');
  const end = r.u64('end');
  const from = r.u64('from');
  const filteredListId = r.str('filteredListId');
  const executorId = r.str('executorId');
  const realtime = r.bool('realtime');
  r.end();
  return { kind: 'unit.run', taskId, epoch, unitNo, filteredListId, start, end, from, executorId, realtime };
}
