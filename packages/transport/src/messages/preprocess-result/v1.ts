/**
 * preprocess.result, version 1. dispatcher -> scheduler: the filtered list and
 * the unit plan, or why pre-processing failed.
 *
 *   frame    = kind:u8(4) version:u8(1) taskId:u64 epoch:u32 ok:bool body
 *   body     = ok=1: filteredListId:str total:u64 kept:u64
 *                    removedCount:u8 removed{removedCount}
 *                    unitCount:u32 unit{unitCount}
 *              ok=0: errorCode:str message:str
 *   removed  = reason:u8 count:u64      entries in strictly ascending reason order
 *   unit     = start:u64 end:u64 executorId:str
 *   str      = length:u16 LE, then `length` bytes of UTF-8; all integers LE
 *
 *   offset  size  field
 *   0       1     kind     u8 = 4
 *   1       1     version  u8 = 1
 *   2       8     taskId   u64
 *   10      4     epoch    u32
 *   14      1     ok       bool (u8 0 or 1)
 *   15      ...   body
 *
 * Filter reason codes (u8; any other value, or a repeated or out-of-order
 * reason, is malformed):
 *   1 duplicate   2 blacklisted   3 already_sent   4 not_follower
 *   5 over_frequency   6 targeting   7 held_out
 */
import type { FilterReason } from '@herald/core/task';
import { FrameWriter, malformed, openFrame, type FrameReader } from '../codec';
import type { PlannedUnit, PreprocessResult } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

const REASON_CODES: Record<FilterReason, number> = {
  duplicate: 1,
  blacklisted: 2,
  already_sent: 3,
  not_follower: 4,
  over_frequency: 5,
  targeting: 6,
  // The A/B holdout (docs/rollouts.md). An older reader refuses a frame carrying it as FRAME_MALFORMED:
  // only a task with a holdout sends one, and such a task is created only through a build that knows it.
  held_out: 7,
};
/** Indexed by code: REASONS[1] === 'duplicate'. */
const REASONS: (FilterReason | undefined)[] = [];
for (const [reason, code] of Object.entries(REASON_CODES)) REASONS[code] = reason as FilterReason;

type Ok = Extract<PreprocessResult, { ok: true }>;
type Removed = Ok['removed'];

export function encode(msg: PreprocessResult): Buffer {
  const w = new FrameWriter('preprocess.result', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .bool(msg.ok, 'ok');
  if (!msg.ok) return w.str(msg.errorCode, 'errorCode').str(msg.message, 'message').finish();
  w.str(msg.filteredListId, 'filteredListId').u64(msg.total, 'total').u64(msg.kept, 'kept');
  writeRemoved(w, msg.removed);
  writeUnits(w, msg.units);
  return w.finish();
}

export function writeUnits(w: FrameWriter, units: readonly PlannedUnit[]): void {
  w.u32(units.length, 'unitCount');
  for (const unit of units)
    w.u64(unit.start, 'unit.start').u64(unit.end, 'unit.end').str(unit.executorId, 'unit.executorId');
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
  r.end();
  return { kind: 'preprocess.result', ok: true, taskId, epoch, filteredListId, total, kept, removed, units };
}

/** Shared with version 2, whose grammar extends this one's. */
export function writeRemoved(w: FrameWriter, removed: Removed): void {
  const entries = Object.entries(removed).filter(([, count]) => count !== undefined);
  for (const [reason] of entries) {
    if (!Object.hasOwn(REASON_CODES, reason))
      throw malformed(`preprocess.result: cannot encode: unknown filter reason ${JSON.stringify(reason)}`);
  }
  entries.sort(([a], [b]) => REASON_CODES[a as FilterReason] - REASON_CODES[b as FilterReason]);
  w.u8(entries.length, 'removedCount');
  for (const [reason, count] of entries)
    w.u8(REASON_CODES[reason as FilterReason], 'removed.reason').u64(count!, `removed.${reason}`);
}

export function readRemoved(r: FrameReader): Removed {
  const removed: Removed = {};
  let previous = 0;
  for (let i = r.u8('removedCount'); i > 0; i--) {
    const code = r.u8('removed.reason');
    const reason = REASONS[code];
    if (reason === undefined) throw malformed(`preprocess.result: unknown filter reason code ${code}`, { code });
    if (code <= previous)
      throw malformed(`preprocess.result: filter reason code ${code} repeated or out of order`, { code });
    previous = code;
    removed[reason] = r.u64(`removed.${reason}`);
  }
  return removed;
}

/** Every unit takes at least 18 bytes, so a huge unitCount in a short frame fails on the first missing unit. */
export function readUnits(r: FrameReader): PlannedUnit[] {
  const units: PlannedUnit[] = [];
  for (let i = r.u32('unitCount'); i > 0; i--) {
    const start = r.u64('unit.start');
    const end = r.u64('unit.end');
    units.push({ start, end, executorId: r.str('unit.executorId') });
  }
  return units;
}
