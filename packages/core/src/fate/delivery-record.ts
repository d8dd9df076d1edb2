import { ListFormatError } from '../errors';

/**
 * One confirmed batch as its executor recorded it: positions
 * [from, from + count) of the task's filtered list, which of them went online
 * (the rest were queued offline), when, and by which executor.
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
}

const VERSION = 1;
/** version u8, count u32, at f64, executor length u8: then the executor id (UTF-8), then the bits. */
const HEAD = 1 + 4 + 8 + 1;

/** A record's stored value (its key holds the task and `from`): 14 bytes + the executor id + count/8. */
export function encodeDeliveryRecord(record: DeliveryRecord): Uint8Array {
  const executor = new TextEncoder().encode(record.executor);
  if (executor.length > 255) throw new RangeError('executor id is longer than 255 bytes');
  const bitBytes = (record.count + 7) >>> 3;
  const out = new Uint8Array(HEAD + executor.length + bitBytes);
  const view = new DataView(out.buffer);
  view.setUint8(0, VERSION);
  view.setUint32(1, record.count, true);
  view.setFloat64(5, record.at, true);
  view.setUint8(13, executor.length);
  out.set(executor, HEAD);
  out.set(record.online.subarray(0, bitBytes), HEAD + executor.length);
  return out;
}

export function decodeDeliveryRecord(taskId: number, from: number, bytes: Uint8Array): DeliveryRecord {
  if (bytes.length < HEAD)
    throw new ListFormatError('LIST_BAD_HEADER', `delivery record of task ${taskId} at ${from} is truncated`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== VERSION)
    throw new ListFormatError(
      'LIST_BAD_HEADER',
      `delivery record of task ${taskId} at ${from} has unknown version ${view.getUint8(0)}`,
    );
  const count = view.getUint32(1, true);
  const executorLength = view.getUint8(13);
  const bitBytes = (count + 7) >>> 3;
  if (bytes.length !== HEAD + executorLength + bitBytes)
    throw new ListFormatError(
      'LIST_BAD_HEADER',
      `delivery record of task ${taskId} at ${from} is ${bytes.length} bytes, not as its header says`,
    );
  return {
    taskId,
    from,
    count,
    at: view.getFloat64(5, true),
    executor: new TextDecoder().decode(bytes.subarray(HEAD, HEAD + executorLength)),
    online: bytes.slice(HEAD + executorLength),
  };
}
