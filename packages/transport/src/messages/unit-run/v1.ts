/**
 * unit.run, version 1: what builds before version 2 send. scheduler ->
 * dispatcher: stream one unit's recipients [from, end) of the filtered list to
 * an executor.
 *
 *   offset  size  field
 *   0       1     kind            u8 = 5
 *   1       1     version         u8 = 1
 *   2       8     taskId          u64 LE
 *   10      4     epoch           u32 LE
 *   14      4     unitNo          u32 LE
 *   18      8     start           u64 LE
 *   26      8     end             u64 LE
 *   34      8     from            u64 LE
 *   42      2+n   filteredListId  str (u16 LE length n, then n bytes UTF-8)
 *   ..      2+m   executorId      str
 *   ..      1     realtime        bool (u8 0/1), optional: see below
 *                 (end: 47 + n + m bytes, or 46 + n + m without realtime)
 *
 * Two shapes went out under version 1: builds from 2026-11-22 08:06 on append
 * `realtime` (and this module's encode writes it, as they do); the builds
 * before wrote no such byte. Decoding a frame without it fills the documented
 * default, `realtime: false`: those builds had no real-time inbox, so a
 * unit they ran streamed to the normal one. Version 2 (v2.ts) makes the byte
 * required, so the version byte alone says which grammar a frame has.
 */
import { FrameWriter, openFrame } from '../codec';
import type { UnitRun } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

/** What a version 1 frame without the realtime byte means. */
export const REALTIME_DEFAULT = false;

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
  const realtime = r.more() ? r.bool('realtime') : REALTIME_DEFAULT;
  r.end();
  return { kind: 'unit.run', taskId, epoch, unitNo, filteredListId, start, end, from, executorId, realtime };
}
