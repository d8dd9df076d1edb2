/**
 * unit.batch, version 1. dispatcher -> executor: one batch of a unit's
 * recipients. A fixed 32-byte header, then the uins, so the uins start
 * 4-byte aligned and decode can view them in place.
 *
 *   offset  size  field
 *   0       1     kind      u8 = 7
 *   1       1     version   u8 = 1
 *   2       1     flags     u8: bit 0 = last (the unit's last batch); other bits 0
 *   3       1     reserved  u8 = 0
 *   4       4     unitNo    u32 LE
 *   8       4     epoch     u32 LE
 *   12      4     count     u32 LE, number of uins
 *   16      8     taskId    u64 LE
 *   24      8     offset    u64 LE, index in the filtered list of the first uin
 *   32      4*n   uins      n = count, u32 LE each
 *                 (end: exactly 32 + 4 * count bytes)
 *
 * decode returns `uins` as a zero-copy Uint32Array view of the frame when the
 * frame's byteOffset is a multiple of 4 (on a little-endian host), and as a
 * copy otherwise. A view shares memory with the frame: do not reuse the frame.
 */
import { FrameError } from '@herald/core';
import { KIND_IDS, malformed, openFrame } from '../codec';
import type { UnitBatch } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

const BATCH_HEADER_BYTES = 32;
const FLAG_LAST = 1;
const TWO_32 = 2 ** 32;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** One allocation and one memory copy of the uins; no per-uin work on little-endian hosts. */
export function encode(msg: UnitBatch): Buffer {
  const { uins } = msg;
  if (!(uins instanceof Uint32Array)) throw bad('uins is not a Uint32Array');
  if (typeof msg.last !== 'boolean') throw bad('last is not a boolean');
  checkU32(msg.unitNo, 'unitNo');
  checkU32(msg.epoch, 'epoch');
  checkU64(msg.taskId, 'taskId');
  checkU64(msg.offset, 'offset');
  const frame = Buffer.allocUnsafe(BATCH_HEADER_BYTES + uins.byteLength);
  frame[0] = KIND_IDS['unit.batch'];
  frame[1] = VERSION;
  frame[2] = msg.last ? FLAG_LAST : 0;
  frame[3] = 0;
  frame.writeUInt32LE(msg.unitNo, 4);
  frame.writeUInt32LE(msg.epoch, 8);
  frame.writeUInt32LE(uins.length, 12);
  writeU64(frame, msg.taskId, 16);
  writeU64(frame, msg.offset, 24);
  if (LITTLE_ENDIAN) frame.set(new Uint8Array(uins.buffer, uins.byteOffset, uins.byteLength), BATCH_HEADER_BYTES);
  else for (let i = 0; i < uins.length; i++) frame.writeUInt32LE(uins[i]!, BATCH_HEADER_BYTES + 4 * i);
  return frame;
}

export function decode(frame: Buffer): UnitBatch {
  openFrame(frame, 'unit.batch', VERSION);
  if (frame.length < BATCH_HEADER_BYTES)
    throw malformed(`unit.batch: frame is ${frame.length} bytes, shorter than the 32-byte header`);
  const flags = frame[2]!;
  if ((flags & ~FLAG_LAST) !== 0) throw malformed(`unit.batch: unknown flags 0x${flags.toString(16)}`, { flags });
  if (frame[3] !== 0) throw malformed('unit.batch: reserved byte is not 0');
  const count = frame.readUInt32LE(12);
  const bodyBytes = frame.length - BATCH_HEADER_BYTES;
  if (bodyBytes !== count * 4)
    throw malformed(`unit.batch: count is ${count} but the body holds ${bodyBytes} bytes`, { count, bodyBytes });
  return {
    kind: 'unit.batch',
    taskId: readU64(frame, 'taskId', 16),
    epoch: frame.readUInt32LE(8),
    unitNo: frame.readUInt32LE(4),
    offset: readU64(frame, 'offset', 24),
    last: (flags & FLAG_LAST) !== 0,
    uins: readUins(frame, count),
  };
}

function readUins(frame: Buffer, count: number): Uint32Array {
  const start = frame.byteOffset + BATCH_HEADER_BYTES;
  if (LITTLE_ENDIAN && start % 4 === 0) return new Uint32Array(frame.buffer, start, count);
  const uins = new Uint32Array(count);
  if (LITTLE_ENDIAN) new Uint8Array(uins.buffer).set(frame.subarray(BATCH_HEADER_BYTES));
  else for (let i = 0; i < count; i++) uins[i] = frame.readUInt32LE(BATCH_HEADER_BYTES + 4 * i);
  return uins;
}

function readU64(frame: Buffer, field: string, at: number): number {
  const high = frame.readUInt32LE(at + 4);
  if (high > 0x1fffff) throw malformed(`unit.batch: ${field} is above Number.MAX_SAFE_INTEGER`, { field });
  return high * TWO_32 + frame.readUInt32LE(at);
}

function writeU64(frame: Buffer, value: number, at: number): void {
  frame.writeUInt32LE(value >>> 0, at);
  frame.writeUInt32LE(Math.floor(value / TWO_32), at + 4);
}

function checkU64(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw bad(`${field} is ${String(value)}, not a safe non-negative integer`);
}

function checkU32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw bad(`${field} is ${String(value)}, not a u32`);
}

function bad(problem: string): FrameError {
  return malformed(`unit.batch: cannot encode: ${problem}`);
}
