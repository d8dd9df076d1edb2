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

export const EXPIRY_INDEX_KEY = key(tag('m'), { tail: 'expiryIndex' });

export const scopeKey = (range: number, scope: string, taskId: number) =>
  key(tag('g'), { u32: range }, { str: scope }, { u64: taskId });
export const tasksOfScope = (range: number, scope: string) =>
  prefixRange(key(tag('g'), { u32: range }, { str: scope }));
/** Every 'g' key, whatever its range and scope. */
export const SCOPES = prefixRange(key(tag('g')));
/** Where the task id sits in a scope key: after the tag, the range and the length-prefixed scope. */
export const taskInScopeKey = (scope: string) => 9 + scope.length * 2;

/** Expiry keys sort by whole ms; the exact time is the value's, so a fraction is never purged early. */
const expiryMs = (expiresAt: number) => Math.min(Math.max(Math.floor(expiresAt), 0), Number.MAX_SAFE_INTEGER);
export const expiryKey = (expiresAt: number, taskId: number) =>
  key(tag('e'), { u64: expiryMs(expiresAt) }, { u64: taskId });
/** Every expiry key whose whole ms is at most `now`'s. */
export const expiredBy = (now: number) => ({
  gte: key(tag('e')),
  lt: key(tag('e'), { u64: expiryMs(now) + 1 }),
});
export const TASK_IN_EXPIRY_KEY = 9;

/** An expiry entry's value: expiresAt (f64 BE), then the task's collapse scope (UTF-16LE) if it has one. */
export function encodeExpiry(expiresAt: number, scope: string | undefined): Buffer {
  const buf = Buffer.alloc(8 + (scope?.length ?? 0) * 2);
  buf.writeDoubleBE(expiresAt, 0);
  if (scope !== undefined) buf.write(scope, 8, 'utf16le');
  return buf;
}

export function decodeExpiry(value: Buffer): { expiresAt: number; scope: string | undefined } {
  return { expiresAt: value.readDoubleBE(0), scope: value.length > 8 ? value.toString('utf16le', 8) : undefined };
}

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
