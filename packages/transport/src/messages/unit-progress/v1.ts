/**
 * unit.progress, version 1. executor -> scheduler: one batch of a unit is
 * confirmed (delivered online or queued offline).
 *
 *   offset  size  field
 *   0       1     kind       u8 = 8
 *   1       1     version    u8 = 1
 *   2       8     taskId     u64 LE
 *   10      4     epoch      u32 LE
 *   14      4     unitNo     u32 LE
 *   18      8     from       u64 LE
 *   26      8     to         u64 LE
 *   34      4     delivered  u32 LE
 *   38      4     offline    u32 LE
 *   42      1     done       bool (u8 0 or 1)
 *   43            (end: 43 bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { UnitProgressMessage } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: UnitProgressMessage): Buffer {
  return new FrameWriter('unit.progress', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u32(msg.unitNo, 'unitNo')
    .u64(msg.from, 'from')
    .u64(msg.to, 'to')
    .u32(msg.delivered, 'delivered')
    .u32(msg.offline, 'offline')
    .bool(msg.done, 'done')
    .finish();
}

export function decode(frame: Buffer): UnitProgressMessage {
  const r = openFrame(frame, 'unit.progress', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const unitNo = r.u32('unitNo');
  const from = r.u64('from');
  const to = r.u64('to');
  const delivered = r.u32('delivered');
  const offline = r.u32('offline');
  const done = r.bool('done');
  r.end();
  return { kind: 'unit.progress', taskId, epoch, unitNo, from, to, delivered, offline, done };
}
