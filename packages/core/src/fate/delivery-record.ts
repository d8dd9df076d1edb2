import { ListFormatError } from '../errors';

/**
 * One confirmed batch as its executor recorded it: positions
 * [from, from + count) of the task's filtered list, which of them went online
 * (the rest were queued offline), which of the online ones the channel
 * rejected for good and why, when, and by which executor.
 */
export interface DeliveryRecord {
  taskId: number;
  from: number;
  count: number;
  /** Bit i: position from + i was pushed online; clear: queued offline (positions.ts). */
  online: Uint8Array;
  executor: string;
  /** When the batch was confirmed, ms since the epoch. */
  at: number;
  /** The batch's dead letters (docs/delivery.md, "Dead letters"); absent: none. */
  rejected?: BatchRejections;
}

/**
 * The recipients of a batch the channel rejected for good, by their offset
 * in the batch (position - from): `offsets` ascending, each once, and
 * `reasons[reasonOf[i]]` the channel's reason for `offsets[i]`, as the task's
 * dead letters count it. Built by rejectionsOf, read by rejectionAt.
 */
export interface BatchRejections {
  offsets: Uint32Array;
  reasons: readonly string[];
  reasonOf: Uint8Array;
}

/** Version 1: no rejections. Version 2: the same, then the rejections section (written only when there are some). */
const VERSION = 1;
const VERSION_WITH_REJECTIONS = 2;
/** version u8, count u32, at f64, executor length u8: then the executor id (UTF-8), then the bits. */
const HEAD = 1 + 4 + 8 + 1;
const UTF8 = new TextEncoder();
/** A reason's index is a byte, its length a byte. */
const MAX_REASONS = 255;

/**
 * A record's stored value (its key holds the task and `from`): 14 bytes + the
 * executor id + count/8; with rejections, then the reasons (a count byte, each
 * a length byte and its UTF-8), the rejected count (u32), their offsets (u32
 * each) and, with more than one reason, a reason index byte each.
 */
export function encodeDeliveryRecord(record: DeliveryRecord): Uint8Array {
  const executor = UTF8.encode(record.executor);
  if (executor.length > 255) throw new RangeError('executor id is longer than 255 bytes');
  const bitBytes = (record.count + 7) >>> 3;
  const rejections = record.rejected === undefined ? undefined : encodeRejections(record.rejected, record.count);
  const out = new Uint8Array(HEAD + executor.length + bitBytes + (rejections?.length ?? 0));
  const view = new DataView(out.buffer);
  view.setUint8(0, rejections === undefined ? VERSION : VERSION_WITH_REJECTIONS);
  view.setUint32(1, record.count, true);
  view.setFloat64(5, record.at, true);
  view.setUint8(13, executor.length);
  out.set(executor, HEAD);
  out.set(record.online.subarray(0, bitBytes), HEAD + executor.length);
  if (rejections !== undefined) out.set(rejections, HEAD + executor.length + bitBytes);
  return out;
}

export function decodeDeliveryRecord(taskId: number, from: number, bytes: Uint8Array): DeliveryRecord {
  const bad = (what: string) =>
    new ListFormatError('LIST_BAD_HEADER', `delivery record of task ${taskId} at ${from} ${what}`);
  if (bytes.length < HEAD) throw bad('is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint8(0);
  if (version !== VERSION && version !== VERSION_WITH_REJECTIONS) throw bad(`has unknown version ${version}`);
  const count = view.getUint32(1, true);
  const executorLength = view.getUint8(13);
  const bitsEnd = HEAD + executorLength + ((count + 7) >>> 3);
  if (version === VERSION ? bytes.length !== bitsEnd : bytes.length <= bitsEnd)
    throw bad(`is ${bytes.length} bytes, not as its header says`);
  const record: DeliveryRecord = {
    taskId,
    from,
    count,
    at: view.getFloat64(5, true),
    executor: new TextDecoder().decode(bytes.subarray(HEAD, HEAD + executorLength)),
    online: bytes.slice(HEAD + executorLength, bitsEnd),
  };
  if (version === VERSION) return record;
  const rejected = decodeRejections(bytes.subarray(bitsEnd), count);
  if (rejected === undefined) throw bad('has an unreadable rejections section');
  return { ...record, rejected };
}

/**
 * A batch's rejections from the channel's (uin, reason) pairs: each uin's
 * offset in `uins` (the batch's recipients in position order, each once).
 * Undefined when there are none, so a batch without dead letters is
 * recorded as before. Throws RangeError for a uin not in the batch or more
 * than 255 distinct reasons (the executor labels at most 64).
 */
export function rejectionsOf(
  uins: Uint32Array,
  rejected: readonly { uin: number; reason: string }[],
): BatchRejections | undefined {
  if (rejected.length === 0) return undefined;
  const offsetOf = new Map<number, number>();
  uins.forEach((uin, offset) => offsetOf.set(uin, offset));
  const reasonIndex = new Map<string, number>();
  const pairs = rejected.map(({ uin, reason }) => {
    const offset = offsetOf.get(uin);
    if (offset === undefined) throw new RangeError(`rejected uin ${uin} is not in the batch`);
    if (!reasonIndex.has(reason)) reasonIndex.set(reason, reasonIndex.size);
    return { offset, reason: reasonIndex.get(reason)! };
  });
  if (reasonIndex.size > MAX_REASONS) throw new RangeError(`more than ${MAX_REASONS} rejection reasons in one batch`);
  pairs.sort((a, b) => a.offset - b.offset);
  if (pairs.some((p, i) => i > 0 && p.offset === pairs[i - 1]!.offset))
    throw new RangeError('a uin is rejected twice in one batch');
  return {
    offsets: Uint32Array.from(pairs, (p) => p.offset),
    reasons: [...reasonIndex.keys()],
    reasonOf: Uint8Array.from(pairs, (p) => p.reason),
  };
}

/** The reason the recipient at `offset` of the batch was rejected for, or undefined: a binary search. */
export function rejectionAt(rejections: BatchRejections, offset: number): string | undefined {
  const { offsets } = rejections;
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (offsets[mid]! < offset) low = mid + 1;
    else high = mid;
  }
  return offsets[low] === offset ? rejections.reasons[rejections.reasonOf[low]!] : undefined;
}

function encodeRejections(rejected: BatchRejections, count: number): Uint8Array {
  const { offsets, reasons, reasonOf } = rejected;
  if (offsets.length === 0) throw new RangeError('a rejections section holds at least one recipient');
  if (reasons.length === 0 || reasons.length > MAX_REASONS)
    throw new RangeError(`a batch's rejections have 1 to ${MAX_REASONS} reasons`);
  if (reasonOf.length !== offsets.length) throw new RangeError('one reason index per rejected offset');
  if (offsets.some((offset, i) => offset >= count || (i > 0 && offset <= offsets[i - 1]!)))
    throw new RangeError('rejected offsets are ascending, each once, inside the batch');
  const names = reasons.map((reason) => UTF8.encode(reason));
  if (names.some((name) => name.length > 255)) throw new RangeError('a rejection reason is longer than 255 bytes');
  // One reason (the usual case: `unregistered`, or a batch refused whole) needs no index per recipient.
  const indexBytes = reasons.length > 1 ? offsets.length : 0;
  const namesBytes = names.reduce((sum, name) => sum + 1 + name.length, 0);
  const out = new Uint8Array(1 + namesBytes + 4 + 4 * offsets.length + indexBytes);
  const view = new DataView(out.buffer);
  let at = 0;
  view.setUint8(at++, names.length);
  for (const name of names) {
    view.setUint8(at++, name.length);
    out.set(name, at);
    at += name.length;
  }
  view.setUint32(at, offsets.length, true);
  at += 4;
  for (const offset of offsets) {
    view.setUint32(at, offset, true);
    at += 4;
  }
  if (indexBytes > 0) out.set(reasonOf, at);
  return out;
}

/** The section encodeRejections wrote, or undefined when it does not read as one. */
function decodeRejections(bytes: Uint8Array, count: number): BatchRejections | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const reasonCount = view.getUint8(at++);
  const reasons: string[] = [];
  for (let i = 0; i < reasonCount; i++) {
    if (at >= bytes.length) return undefined;
    const length = view.getUint8(at++);
    if (at + length > bytes.length) return undefined;
    reasons.push(new TextDecoder().decode(bytes.subarray(at, at + length)));
    at += length;
  }
  if (reasonCount === 0 || at + 4 > bytes.length) return undefined;
  const n = view.getUint32(at, true);
  at += 4;
  const indexBytes = reasonCount > 1 ? n : 0;
  if (n === 0 || bytes.length !== at + 4 * n + indexBytes) return undefined;
  const offsets = new Uint32Array(n);
  for (let i = 0; i < n; i++) offsets[i] = view.getUint32(at + 4 * i, true);
  if (offsets.some((offset, i) => offset >= count || (i > 0 && offset <= offsets[i - 1]!))) return undefined;
  const reasonOf = indexBytes > 0 ? bytes.slice(at + 4 * n) : new Uint8Array(n);
  if (reasonOf.some((index) => index >= reasonCount)) return undefined;
  return { offsets, reasons, reasonOf };
}
