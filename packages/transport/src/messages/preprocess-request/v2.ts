/**
 * preprocess.request, version 2: what this build sends. scheduler ->
 * dispatcher: filter and plan a task. Version 1's grammar with `speed`
 * required (v1.ts: it was optional there).
 *
 *   offset  size  field
 *   0       1     kind        u8 = 3
 *   1       1     version     u8 = 2
 *   2       8     taskId      u64 LE
 *   10      4     epoch       u32 LE
 *   14      4     contentCrc  u32 LE
 *   18      2+n   listId      str (u16 LE length n, then n bytes UTF-8)
 *   ..      2+m   accountId   str
 *   ..      4     speed       u32 LE (recipients/s the task asks for; 0: none)
 *                 (end: 26 + n + m bytes)
 */
import { FrameWriter, openFrame } from '../codec';
import type { PreprocessRequest } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 2;

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
  const speed = r.u32('speed');
  r.end();
  return { kind: 'preprocess.request', taskId, epoch, listId, accountId, contentCrc, speed };
}
