/**
 * user.logins, version 1. presence agent -> executor: these users just came
 * online; deliver what their offline lists hold in this executor's store.
 * An 8-byte header, then the uins, so they start 4-byte aligned.
 *
 *   offset  size  field
 *   0       1     kind      u8 = 9
 *   1       1     version   u8 = 1
 *   2       2     reserved  u16 = 0
 *   4       4     count     u32 LE, number of uins (at least 1)
 *   8       4*n   uins      u32 LE each
 *                 (end: exactly 8 + 4 * count bytes)
 */
import { KIND_IDS, malformed, openFrame } from '../codec';
import type { UserLogins } from '../types';

/** The version this module writes and reads, byte 1 of its frames. */
export const VERSION = 1;

const HEADER_BYTES = 8;

export function encode(msg: UserLogins): Buffer {
  const { uins } = msg;
  if (!(uins instanceof Uint32Array)) throw malformed('user.logins: cannot encode: uins is not a Uint32Array');
  if (uins.length === 0) throw malformed('user.logins: cannot encode: no uins');
  const frame = Buffer.alloc(HEADER_BYTES + uins.byteLength);
  frame[0] = KIND_IDS['user.logins'];
  frame[1] = VERSION;
  frame.writeUInt32LE(uins.length, 4);
  for (let i = 0; i < uins.length; i++) frame.writeUInt32LE(uins[i]!, HEADER_BYTES + 4 * i);
  return frame;
}

export function decode(frame: Buffer): UserLogins {
  openFrame(frame, 'user.logins', VERSION);
  if (frame.length < HEADER_BYTES)
    throw malformed(`user.logins: frame is ${frame.length} bytes, shorter than the 8-byte header`);
  if (frame.readUInt16LE(2) !== 0) throw malformed('user.logins: reserved bytes are not 0');
  const count = frame.readUInt32LE(4);
  if (count === 0) throw malformed('user.logins: count is 0');
  const bodyBytes = frame.length - HEADER_BYTES;
  if (bodyBytes !== count * 4)
    throw malformed(`user.logins: count is ${count} but the body holds ${bodyBytes} bytes`, { count, bodyBytes });
  const uins = new Uint32Array(count);
  for (let i = 0; i < count; i++) uins[i] = frame.readUInt32LE(HEADER_BYTES + 4 * i);
  return { kind: 'user.logins', uins };
}
