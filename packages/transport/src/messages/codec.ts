/**
 * The pieces every message module is built from: the kind ids, the 2-byte
 * frame header, and a reader and a writer for the field types of the wire.
 *
 *   frame  = kind:u8 version:u8 body
 *   u8     = 1 byte
 *   u32    = 4 bytes, little-endian
 *   u64    = 8 bytes, little-endian; values above Number.MAX_SAFE_INTEGER are malformed
 *   bool   = u8, 0 (false) or 1 (true); anything else is malformed
 *   str    = length:u16 LE, then `length` bytes of well-formed UTF-8
 *
 * Each kind has one module per version (`<kind>/v<N>.ts`) that writes and
 * reads exactly that version, and an index (`<kind>/index.ts`) that writes the
 * version this build sends and reads every version it still accepts.
 *
 * Decoding throws only FrameError. Encoding a value the wire cannot carry
 * (a negative or fractional number, a u32 above 2^32-1, a string over 65535
 * UTF-8 bytes or with a lone surrogate) throws FrameError FRAME_MALFORMED too:
 * the frame it would produce is malformed.
 */
import { FrameError } from '@herald/core';
import type { MessageKind } from './types';

/** Byte 0 of every frame. Fixed forever: never renumber, only add. */
export const KIND_IDS = {
  'task.submitted': 1,
  'task.command': 2,
  'preprocess.request': 3,
  'preprocess.result': 4,
  'unit.run': 5,
  'task.halt': 6,
  'unit.batch': 7,
  'unit.progress': 8,
  'user.logins': 9,
  apta: 10,
  'host.load': 11,
  'unit.replan': 12,
  'channel.throttled': 13,
  'channel.demand': 14,
} as const satisfies Record<MessageKind, number>;

export const HEADER_BYTES = 2;
const TWO_32 = 2 ** 32;
const MAX_U64_HIGH = Math.floor(Number.MAX_SAFE_INTEGER / TWO_32); // 0x1fffff
const MAX_STR_BYTES = 0xffff;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function malformed(message: string, details: Record<string, unknown> = {}): FrameError {
  return new FrameError('FRAME_MALFORMED', message, details);
}

/** Checks the header's length and kind byte; a frame of another kind is malformed for this decoder. */
export function checkHeader(frame: Buffer, kind: MessageKind): void {
  if (frame.length < HEADER_BYTES)
    throw malformed(`${kind}: frame is ${frame.length} bytes, shorter than the 2-byte header`);
  if (frame[0] !== KIND_IDS[kind]) throw malformed(`${kind}: kind byte is ${frame[0]}, expected ${KIND_IDS[kind]}`);
}

/** The typed refusal of a version this decoder does not read: FRAME_UNSUPPORTED_VERSION, naming it and the ones read. */
export function unsupportedVersion(kind: MessageKind, version: number, accepts: readonly number[]): FrameError {
  return new FrameError(
    'FRAME_UNSUPPORTED_VERSION',
    `${kind}: version ${version} is not supported (this build reads ${accepts.join(', ')})`,
    {
      kind,
      version,
      accepts: [...accepts],
    },
  );
}

/** Checks length, kind and that the frame is exactly `version`; returns a reader positioned at the body. */
export function openFrame(frame: Buffer, kind: MessageKind, version: number): FrameReader {
  checkHeader(frame, kind);
  if (frame[1] !== version) throw unsupportedVersion(kind, frame[1]!, [version]);
  return new FrameReader(frame, kind);
}

/** Reads a frame's body front to back; every read first checks that its bytes are there. */
export class FrameReader {
  private pos = HEADER_BYTES;

  constructor(
    private readonly frame: Buffer,
    private readonly kind: MessageKind,
  ) {}

  u8(field: string): number {
    this.need(1, field);
    return this.frame[this.pos++]!;
  }

  u32(field: string): number {
    this.need(4, field);
    const value = this.frame.readUInt32LE(this.pos);
    this.pos += 4;
    return value;
  }

  u64(field: string): number {
    this.need(8, field);
    const low = this.frame.readUInt32LE(this.pos);
    const high = this.frame.readUInt32LE(this.pos + 4);
    if (high > MAX_U64_HIGH) throw this.bad(field, 'is above Number.MAX_SAFE_INTEGER');
    this.pos += 8;
    return high * TWO_32 + low;
  }

  bool(field: string): boolean {
    const byte = this.u8(field);
    if (byte > 1) throw this.bad(field, `is ${byte}, expected 0 or 1`);
    return byte === 1;
  }

  str(field: string): string {
    const length = this.u16(field);
    this.need(length, field);
    const bytes = this.frame.subarray(this.pos, this.pos + length);
    this.pos += length;
    try {
      return utf8.decode(bytes);
    } catch {
      throw this.bad(field, 'is not well-formed UTF-8');
    }
  }

  /** Whether bytes are left: for a field a later grammar appended, absent from older frames. */
  more(): boolean {
    return this.pos < this.frame.length;
  }

  /** Call after the last field: a frame longer than its grammar is malformed. */
  end(): void {
    const extra = this.frame.length - this.pos;
    if (extra !== 0) throw malformed(`${this.kind}: ${extra} trailing bytes after the last field`, { kind: this.kind });
  }

  private u16(field: string): number {
    this.need(2, field);
    const value = this.frame.readUInt16LE(this.pos);
    this.pos += 2;
    return value;
  }

  private need(bytes: number, field: string): void {
    const left = this.frame.length - this.pos;
    if (left < bytes) throw this.bad(field, `needs ${bytes} bytes at offset ${this.pos}, frame has ${left} left`);
  }

  private bad(field: string, problem: string): FrameError {
    return malformed(`${this.kind}: ${field} ${problem}`, { kind: this.kind, field });
  }
}

/** Builds a frame: header first, then the fields in grammar order; `finish()` returns it. */
export class FrameWriter {
  private buf = Buffer.allocUnsafe(64);
  private pos = 0;

  constructor(
    private readonly kind: MessageKind,
    version: number,
  ) {
    this.u8(KIND_IDS[kind], 'kind').u8(version, 'version');
  }

  u8(value: number, field: string): this {
    this.check(value, 0xff, field);
    this.room(1);
    this.buf[this.pos++] = value;
    return this;
  }

  u32(value: number, field: string): this {
    this.check(value, 0xffffffff, field);
    this.room(4);
    this.pos = this.buf.writeUInt32LE(value, this.pos);
    return this;
  }

  u64(value: number, field: string): this {
    this.check(value, Number.MAX_SAFE_INTEGER, field);
    this.room(8);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos = this.buf.writeUInt32LE(Math.floor(value / TWO_32), this.pos);
    return this;
  }

  bool(value: boolean, field: string): this {
    if (typeof value !== 'boolean') throw this.bad(field, 'is not a boolean');
    return this.u8(value ? 1 : 0, field);
  }

  str(value: string, field: string): this {
    if (typeof value !== 'string') throw this.bad(field, 'is not a string');
    const bytes = Buffer.from(value, 'utf8');
    if (bytes.length > MAX_STR_BYTES)
      throw this.bad(field, `is ${bytes.length} UTF-8 bytes, the limit is ${MAX_STR_BYTES}`);
    if (bytes.toString('utf8') !== value) throw this.bad(field, 'has a lone surrogate and cannot be sent as UTF-8');
    this.u16(bytes.length);
    this.room(bytes.length);
    this.pos += bytes.copy(this.buf, this.pos);
    return this;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private u16(value: number): void {
    this.room(2);
    this.pos = this.buf.writeUInt16LE(value, this.pos);
  }

  private check(value: number, max: number, field: string): void {
    if (!Number.isInteger(value) || value < 0 || value > max)
      throw this.bad(field, `is ${String(value)}, not an integer in [0, ${max}]`);
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  private bad(field: string, problem: string): FrameError {
    return malformed(`${this.kind}: cannot encode: ${field} ${problem}`, { kind: this.kind, field });
  }
}
