/**
 * preprocess.result, version 2: what this build sends. dispatcher ->
 * scheduler. Version 1's grammar (v1.ts) with one field appended to an ok
 * body: the canary sample's size.
 *
 *   body     = ok=1: filteredListId:str total:u64 kept:u64
 *                    removedCount:u8 removed{removedCount}
 *                    unitCount:u32 unit{unitCount}
 *                    sample:u64      positions [0, sample) are a canary's sample; 0: no canary
 *              ok=0: errorCode:str message:str
 */
import { FrameWriter, openFrame } from '../codec';
import type { PreprocessResult } from '../types';
import { readRemoved, readUnits, writeRemoved, writeUnits } from './v1';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

export function encode(msg: PreprocessResult): Buffer {
  const w = new FrameWriter('preprocess.result', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .bool(msg.ok, 'ok');
  if (!msg.ok) return w.str(msg.errorCode, 'errorCode').str(msg.message, 'message').finish();
  w.str(msg.filteredListId, 'filteredListId').u64(msg.total, 'total').u64(msg.kept, 'kept');
  writeRemoved(w, msg.removed);
  writeUnits(w, msg.units);
  return w.u64(msg.sample ?? 0, 'sample').finish();
}

export function decode(frame: Buffer): PreprocessResult {
  const r = openFrame(frame, 'preprocess.result', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  if (!r.bool('ok')) {
    const errorCode = r.str('errorCode');
    const message = r.str('message');
    r.end();
    return { kind: 'preprocess.result', ok: false, taskId, epoch, errorCode, message };
  }
  const filteredListId = r.str('filteredListId');
  const total = r.u64('total');
  const kept = r.u64('kept');
  const removed = readRemoved(r);
  const units = readUnits(r);
  const sample = r.u64('sample');
  r.end();
  return {
    kind: 'preprocess.result',
    ok: true,
    taskId,
    epoch,
    filteredListId,
    total,
    kept,
    removed,
    units,
    ...(sample === 0 ? {} : { sample }),
  };
}
