/**
 * preprocess.request, version 1: what builds before version 2 send.
 * scheduler -> dispatcher: filter and plan a task.
 *
 *   offset  size  field
 *   0       1     kind        u8 = 3
 *   1       1     version     u8 = 1
 *   2       8     taskId      u64 LE
 *   10      4     epoch       u32 LE
 *   14      4     contentCrc  u32 LE
 *   18      2+n   listId      str (u16 LE length n, then n bytes UTF-8)
 *   ..      2+m   accountId   str
 *   ..      4     speed       u32 LE (recipients/s the task asks for; 0: none), optional: see below
 *                 (end: 26 + n + m bytes, or 22 + n + m without speed)
 *
 * Two shapes went out under version 1: builds from 2026-11-24 20:14 on append
 * `speed` (and this module's encode writes it, as they do); the builds before
 * wrote nothing after accountId. Decoding a frame without it fills the
 * documented default, `speed: 0` (none: the dispatcher plans from the global
 * load), which is how those builds ran every task. Version 2 (v2.ts) makes
 * the field required.
 */
import { FrameWriter, openFrame } from '../codec';
import type { PreprocessRequest } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

/** What a version 1 frame without the speed field means: no speed asked for. */
export const SPEED_DEFAULT = 0;

export function encode(msg: PreprocessRequest): Buffer {
  return new FrameWriter('preprocess.request', VERSION)
    .u64(msg.taskId, 'taskId')
    .u32(msg.epoch, 'epoch')
    .u32(msg.contentCrc, 'contentCrc')
    .str(msg.listId, 'listId')
    .str(msg.accountId, 'accountId')
    .u32(msg.speed, 'speed')
    .finish();
}

export function decode(frame: Buffer): PreprocessRequest {
  const r = openFrame(frame, 'preprocess.request', VERSION);
  const taskId = r.u64('taskId');
  const epoch = r.u32('epoch');
  const contentCrc = r.u32('contentCrc');
  const listId = r.str('listId');
  const accountId = r.str('accountId');
  const speed = r.more() ? r.u32('speed') : SPEED_DEFAULT;
  r.end();
  return { kind: 'preprocess.request', taskId, epoch, listId, accountId, contentCrc, speed };
}
