/**
 * preprocess.result, version 2: what this build sends. dispatcher ->
 * scheduler. Version 1's grammar (v1.ts) with two parts appended, each
 * optional in meaning: a local-time task's groups (docs/local-time.md; a task
 * of one instant sends groupCount 0) and a canary's sample size
 * (docs/rollouts.md; a task without a canary sends 0).
 *
 *   frame    = kind:u8(4) version:u8(2) taskId:u64 epoch:u32 ok:bool body
 *   body     = ok=1: filteredListId:str total:u64 kept:u64
 *                    removedCount:u8 removed{removedCount}
 *                    unitCount:u32 unit{unitCount}
 *                    groupCount:u8 group{groupCount}
 *                    sample:u64      positions [0, sample) are a canary's sample
 *              ok=0: errorCode:str message:str
 *   group    = releaseAt:u64 offset:u32 start:u64 end:u64 skipped:bool
 *              offset is the UTC offset in minutes plus 1024 (so -14:00 is 184)
 *   removed, unit, str: as in version 1
 *
 * A frame with groupCount 0 decodes without `groups`, and one with sample 0
 * without `sample`, as version 1's do.
 */
import { FrameWriter, malformed, openFrame, type FrameReader } from '../codec';
import type { PlannedGroup, PreprocessResult } from '../types';
import { readRemoved, readUnits, writeRemoved, writeUnits } from './v1';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

const OFFSET_BIAS = 1024;

export function encode(msg: PreprocessResult): Buffer {
  const w = new FrameWriter('preprocess.result', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .bool(msg.ok, 'ok');
  if (!msg.ok) return w.str(msg.errorCode, 'errorCode').str(msg.message, 'message').finish();
  w.str(msg.filteredListId, 'filteredListId').u64(msg.total, 'total').u64(msg.kept, 'kept');
  writeRemoved(w, msg.removed);
  writeUnits(w, msg.units);
  const groups = msg.groups ?? [];
  w.u8(groups.length, 'groupCount');
  for (const g of groups) {
    const offset = g.offsetMinutes + OFFSET_BIAS;
    if (!Number.isInteger(offset) || offset < 0 || offset > 2 * OFFSET_BIAS)
      throw malformed(`preprocess.result: cannot encode: group offset ${g.offsetMinutes} minutes`);
    w.u64(g.releaseAt, 'group.releaseAt')
      .u32(offset, 'group.offset')
      .u64(g.start, 'group.start')
      .u64(g.end, 'group.end')
      .bool(g.skipped, 'group.skipped');
  }
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
  const groups = readGroups(r);
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
    ...(groups.length === 0 ? {} : { groups }),
    ...(sample === 0 ? {} : { sample }),
  };
}

function readGroups(r: FrameReader): PlannedGroup[] {
  const groups: PlannedGroup[] = [];
  for (let i = r.u8('groupCount'); i > 0; i--) {
    const releaseAt = r.u64('group.releaseAt');
    const offsetMinutes = r.u32('group.offset') - OFFSET_BIAS;
    const start = r.u64('group.start');
    const end = r.u64('group.end');
    if (end < start) throw malformed(`preprocess.result: group ends (${end}) before it starts (${start})`);
    groups.push({ offsetMinutes, releaseAt, start, end, skipped: r.bool('group.skipped') });
  }
  return groups;
}
