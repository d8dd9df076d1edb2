/**
 * Byte-level key building shared by both Level stores. Numbers are written
 * big-endian so LevelDB's bytewise order is numeric order; strings inside
 * keys are UTF-16LE code units with a length prefix, which round-trips every
 * JavaScript string exactly (lone surrogates included) and keeps one string
 * from being a prefix-collision of another.
 */

/** Task ids are JavaScript safe integers, stored as u64 big-endian. */
export function writeU64BE(buf: Buffer, value: number, offset: number): void {
  buf.writeUInt32BE(Math.floor(value / 0x1_0000_0000), offset);
  buf.writeUInt32BE(value >>> 0, offset + 4);
}

export function readU64BE(buf: Buffer, offset: number): number {
  return buf.readUInt32BE(offset) * 0x1_0000_0000 + buf.readUInt32BE(offset + 4);
}

export interface KeyPart {
  u8?: number;
  u32?: number;
  u64?: number;
  /** Length-prefixed (u32 BE byte count) UTF-16LE. */
  str?: string;
  /** UTF-16LE without a length prefix: only as the last part of a key. */
  tail?: string;
}

/** Builds a key from parts, in order; each part sets exactly one field. */
export function key(...parts: KeyPart[]): Buffer {
  let size = 0;
  for (const p of parts) {
    if (p.u8 !== undefined) size += 1;
    else if (p.u32 !== undefined) size += 4;
    else if (p.u64 !== undefined) size += 8;
    else if (p.str !== undefined) size += 4 + p.str.length * 2;
    else if (p.tail !== undefined) size += p.tail.length * 2;
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of parts) {
    if (p.u8 !== undefined) at = buf.writeUInt8(p.u8, at);
    else if (p.u32 !== undefined) at = buf.writeUInt32BE(p.u32, at);
    else if (p.u64 !== undefined) {
      writeU64BE(buf, p.u64, at);
      at += 8;
    } else if (p.str !== undefined) {
      at = buf.writeUInt32BE(p.str.length * 2, at);
      at += buf.write(p.str, at, 'utf16le');
    } else if (p.tail !== undefined) at += buf.write(p.tail, at, 'utf16le');
  }
  return buf;
}

/** The first byte of a key: one ASCII letter per record kind. */
export function tag(letter: string): { u8: number } {
  return { u8: letter.charCodeAt(0) };
}

/** Iterator bounds covering exactly the keys that start with `prefix`. */
export function prefixRange(prefix: Buffer): { gte: Buffer; lt?: Buffer } {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]!++;
      return { gte: prefix, lt: end };
    }
  }
  return { gte: prefix };
}

export const EMPTY = Buffer.alloc(0);

/** A number as 8 bytes (f64 BE): an expiry time stored as a value. */
export function encodeF64(value: number): Buffer {
  const buf = Buffer.allocUnsafe(8);
  buf.writeDoubleBE(value, 0);
  return buf;
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function decodeJson<T>(buf: Buffer): T {
  return JSON.parse(buf.toString('utf8')) as T;
}
