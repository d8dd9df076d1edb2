/**
 * unit.replan, version 1. dispatcher -> scheduler: the executor a unit.run
 * named stopped reporting its load; the dispatcher did not stream the unit
 * and proposes `to`, a live executor, instead. The scheduler records the move
 * (the unit reassigned in the store: what an executor checks before
 * delivering) and runs the unit again on `to` from its checkpoint.
 *
 *   offset  size  field
 *   0       1     kind     u8 = 12
 *   1       1     version  u8 = 1
 *   2       8     taskId   u64 LE
 *   10      4     epoch    u32 LE: the unit.run's
 *   14      4     unitNo   u32 LE
 *   18      2+n   from     str: the silent executor the unit.run named
 *   ..      2+m   to       str: the live executor proposed
 *                 (end: 22 + n + m bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { UnitReplan } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

export function encode(msg: UnitReplan): Buffer {
  return new FrameWriter('unit.replan', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u32(msg.unitNo, 'unitNo')
    .str(msg.from, 'from')
    .str(msg.to, 'to')
    .finish();
}

export function decode(frame: Buffer): UnitReplan {
  const r = openFrame(frame, 'unit.replan', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const unitNo = r.u32('unitNo');
  const from = r.str('from');
  const to = r.str('to');
  r.end();
  return { kind: 'unit.replan', taskId, epoch, unitNo, from, to };
}
