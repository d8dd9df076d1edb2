/*
 * The key layout of LevelOfflineStore (described there): the builders of
 * each key kind and of the ranges that scan them, where the numbers sit
 * inside keys, and the small value codecs the store writes beside them.
 */
import { encodeF64, key, prefixRange, tag } from './keys';

export const RANGE_BITS_KEY = key(tag('m'), { tail: 'rangeBits' });

export const recordPrefix = (range: number, taskId: number) => key(tag('r'), { u32: range }, { u64: taskId });
export const recordKey = (range: number, taskId: number, first: number) =>
  key(tag('r'), { u32: range }, { u64: taskId }, { u32: first });
/**
 * A task's records in one range of one group (OfflineAppendOptions.group):
 * the unit inside which record spans are disjoint. UNGROUPED records (appends
 * without a group, and every record of a store from before groups) keep the
 * 'r' keys; a group's records are 'q' range taskId group firstUin.
 */
export interface Shelf {
  range: number;
  taskId: number;
  group: number;
}
/** The group of records appended without one; not a valid group number (those are 0..MAX_GROUP). */
export const UNGROUPED = -1;
export const MAX_GROUP = 0xffff;

export const shelfPrefix = ({ range, taskId, group }: Shelf): Buffer =>
  group === UNGROUPED ? recordPrefix(range, taskId) : key(tag('q'), { u32: range }, { u64: taskId }, { u32: group });
export const shelfRecordKey = (shelf: Shelf, first: number): Buffer => {
  const prefix = shelfPrefix(shelf);
  const out = Buffer.allocUnsafe(prefix.length + 4);
  prefix.copy(out, 0);
  out.writeUInt32BE(first >>> 0, prefix.length);
  return out;
};
/** Every group record ('q') of the task in the range, whatever its group. */
export const groupRecordsOf = (range: number, taskId: number) =>
  prefixRange(key(tag('q'), { u32: range }, { u64: taskId }));
/** Every 'q' record key, whatever its range, task and group. */
export const GROUP_RECORDS = prefixRange(key(tag('q')));

/** A shelf's record count: 'k' taskId range (ungrouped, the layout before groups) or 'k' taskId range group. */
export const shelfCountKey = (taskId: number, range: number, group: number): Buffer =>
  group === UNGROUPED ? taskRangeKey(taskId, range) : key(tag('k'), { u64: taskId }, { u32: range }, { u32: group });
/** The group a 'k' key counts (UNGROUPED for the 13-byte keys of the layout before groups). */
export const groupOfCountKey = (k: Buffer): number =>
  k.length > GROUP_IN_COUNT_KEY ? k.readUInt32BE(GROUP_IN_COUNT_KEY) : UNGROUPED;
/** Every 'k' key of the task in the range: the ungrouped count and each group's. */
export const countsOfTaskRange = (taskId: number, range: number) => prefixRange(taskRangeKey(taskId, range));

export const indexKey = (range: number, taskId: number) => key(tag('i'), { u32: range }, { u64: taskId });
export const indexOfRange = (range: number) => prefixRange(key(tag('i'), { u32: range }));
export const taskRangeKey = (taskId: number, range: number) => key(tag('k'), { u64: taskId }, { u32: range });
export const rangesOfTask = (taskId: number) => prefixRange(key(tag('k'), { u64: taskId }));
export const ackKey = (uin: number, taskId: number) => key(tag('a'), { u32: uin }, { u64: taskId });
export const acksOfUin = (uin: number) => prefixRange(key(tag('a'), { u32: uin }));
export const ackByTaskKey = (taskId: number, uin: number) => key(tag('b'), { u64: taskId }, { u32: uin });
export const acksOfTask = (taskId: number) => prefixRange(key(tag('b'), { u64: taskId }));

/**
 * An 'i' value: expiresAt (f64 BE), and when the task has group records in
 * the range, a byte saying whether it has ungrouped ones too (1) or not (0),
 * then each group (u16 BE). Eight bytes alone (every value before groups):
 * ungrouped records only. A login seeks once per group listed.
 */
export function encodeIndex(expiresAt: number, groups: readonly number[]): Buffer {
  if (groups.length === 1 && groups[0] === UNGROUPED) return encodeF64(expiresAt);
  const grouped = groups.filter((g) => g !== UNGROUPED);
  const buf = Buffer.allocUnsafe(9 + grouped.length * 2);
  buf.writeDoubleBE(expiresAt, 0);
  buf.writeUInt8(grouped.length < groups.length ? 1 : 0, 8);
  grouped.forEach((g, i) => buf.writeUInt16BE(g, 9 + i * 2));
  return buf;
}

/** The groups an 'i' value lists (UNGROUPED first when the task has ungrouped records in the range). */
export function groupsOfIndex(value: Buffer): number[] {
  if (value.length <= 8) return [UNGROUPED];
  const groups = value[8] === 1 ? [UNGROUPED] : [];
  for (let at = 9; at + 2 <= value.length; at += 2) groups.push(value.readUInt16BE(at));
  return groups;
}

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
const GROUP_IN_COUNT_KEY = 13;
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
