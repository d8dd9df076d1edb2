/*
 * The key layout of LevelOfflineStore (described there): the builders of
 * each key kind and of the ranges that scan them, where the numbers sit
 * inside keys, and the small value codecs the store writes beside them.
 */
import { key, prefixRange, tag } from './keys';

export const RANGE_BITS_KEY = key(tag('m'), { tail: 'rangeBits' });

export const recordPrefix = (range: number, taskId: number) => key(tag('r'), { u32: range }, { u64: taskId });
export const recordKey = (range: number, taskId: number, first: number) =>
  key(tag('r'), { u32: range }, { u64: taskId }, { u32: first });
export const indexKey = (range: number, taskId: number) => key(tag('i'), { u32: range }, { u64: taskId });
export const indexOfRange = (range: number) => prefixRange(key(tag('i'), { u32: range }));
export const taskRangeKey = (taskId: number, range: number) => key(tag('k'), { u64: taskId }, { u32: range });
export const rangesOfTask = (taskId: number) => prefixRange(key(tag('k'), { u64: taskId }));
export const ackKey = (uin: number, taskId: number) => key(tag('a'), { u32: uin }, { u64: taskId });
export const acksOfUin = (uin: number) => prefixRange(key(tag('a'), { u32: uin }));
export const ackByTaskKey = (taskId: number, uin: number) => key(tag('b'), { u64: taskId }, { u32: uin });
export const acksOfTask = (taskId: number) => prefixRange(key(tag('b'), { u64: taskId }));

/** Offsets of the numbers inside keys (after the tag byte). */
export const TASK_IN_INDEX_KEY = 5;
export const RANGE_IN_TASK_RANGE_KEY = 9;
export const TASK_IN_ACK_KEY = 5;
export const UIN_IN_ACK_BY_TASK_KEY = 9;

/** Every 'r' record key, whatever its range and task. */
export const RECORDS = prefixRange(key(tag('r')));

/** Whether `buf` begins with `prefix` (a key inside a prefix's range). */
export function startsWith(buf: Buffer, prefix: Buffer): boolean {
  return buf.length >= prefix.length && buf.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

export function encodeCount(count: number): Buffer {
  const buf = Buffer.allocUnsafe(4);
  buf.writeUInt32BE(count, 0);
  return buf;
}
