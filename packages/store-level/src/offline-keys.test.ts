import { readU64BE } from './keys';
import {
  ackByTaskKey,
  ackKey,
  encodeCount,
  indexKey,
  RANGE_IN_TASK_RANGE_KEY,
  recordKey,
  recordPrefix,
  startsWith,
  TASK_IN_ACK_KEY,
  TASK_IN_INDEX_KEY,
  taskRangeKey,
  UIN_IN_ACK_BY_TASK_KEY,
} from './offline-keys';

describe('offline keys', () => {
  const taskId = 2 ** 40 + 3;

  it('reads back each number at the offset the store reads it from', () => {
    expect(readU64BE(indexKey(7, taskId), TASK_IN_INDEX_KEY)).toBe(taskId);
    expect(taskRangeKey(taskId, 0xfffe).readUInt32BE(RANGE_IN_TASK_RANGE_KEY)).toBe(0xfffe);
    expect(readU64BE(ackKey(0xffffffff, taskId), TASK_IN_ACK_KEY)).toBe(taskId);
    expect(ackByTaskKey(taskId, 123_456).readUInt32BE(UIN_IN_ACK_BY_TASK_KEY)).toBe(123_456);
  });

  it('puts a record key inside its (range, task) prefix and no other', () => {
    expect(startsWith(recordKey(3, taskId, 99), recordPrefix(3, taskId))).toBe(true);
    expect(startsWith(recordKey(3, taskId, 99), recordPrefix(3, taskId + 1))).toBe(false);
    expect(startsWith(recordPrefix(3, taskId), recordKey(3, taskId, 99))).toBe(false);
  });

  it("orders a task's records by their first uin", () => {
    const keys = [0, 1, 256, 0xffffffff].map((first) => recordKey(1, taskId, first));
    expect([...keys].sort(Buffer.compare)).toEqual(keys);
  });

  it('encodes a record count as a big-endian u32', () => {
    expect(encodeCount(0x01020304)).toEqual(Buffer.of(1, 2, 3, 4));
  });
});
