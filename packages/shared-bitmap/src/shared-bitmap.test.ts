import {
  closeSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { isHeraldError, type ErrorCode } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { BITMAP_MAGIC, HEADER_BYTES, bitmapFileBytes } from './format';
import { SharedBitmapError, type SharedBitmapReason } from './errors';
import { SharedOnlineBitmap } from './shared-bitmap';

/** Runs `fn`, expects a SharedBitmapError with this code and reason, and returns it. */
function throwsWith(fn: () => unknown, code: ErrorCode, reason: SharedBitmapReason): SharedBitmapError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof SharedBitmapError))
    throw new Error(`expected a SharedBitmapError ${code}/${reason}, got ${String(thrown)}`, { cause: thrown });
  expect(isHeraldError(thrown)).toBe(true);
  expect({ code: thrown.code, reason: thrown.reason }).toEqual({ code, reason });
  return thrown;
}

describe('SharedOnlineBitmap in one process', () => {
  let dir: TempDir;
  let file: string;
  const open: Array<{ close(): void }> = [];
  const track = <T extends { close(): void }>(handle: T): T => {
    open.push(handle);
    return handle;
  };

  beforeEach(async () => {
    dir = await makeTempDir('herald-shared-bitmap-');
    file = join(dir.path, 'online.bitmap');
  });
  afterEach(async () => {
    for (const handle of open.splice(0)) handle.close();
    await dir.remove();
  });

  it('a reader sees what the writer set and cleared; partition splits a batch in order', () => {
    const writer = track(SharedOnlineBitmap.openWriter(file, 1 << 20));
    const reader = track(SharedOnlineBitmap.openReader(file, 1 << 20));
    for (const uin of [0, 31, 32, 4095, 65_536, (1 << 20) - 1]) writer.setOnline(uin, true);
    writer.setOnline(4095, false);

    expect([0, 31, 32, 4095, 65_536, (1 << 20) - 1, 1, 1 << 20].map((uin) => reader.isOnline(uin))).toEqual([
      true,
      true,
      true,
      false,
      true,
      true,
      false,
      false,
    ]);
    const batch = Uint32Array.from([1, 0, 65_536, 7, 31, (1 << 20) - 1]);
    const online = new Uint32Array(batch.length);
    const offline = new Uint32Array(batch.length);
    expect(reader.partition(batch, online, offline)).toEqual({ online: 4, offline: 2 });
    expect([...online.subarray(0, 4)]).toEqual([0, 65_536, 31, (1 << 20) - 1]);
    expect([...offline.subarray(0, 2)]).toEqual([1, 7]);
    expect(reader.uinLimit).toBe(1 << 20);
  });

  it('lays the file out as documented: a 4096-byte header page, then bit u of byte 4096 + u/8', () => {
    const writer = track(SharedOnlineBitmap.openWriter(file, 100_000));
    writer.setOnline(9, true);
    writer.setOnline(99_999, true);
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(bitmapFileBytes(100_000));
    expect(bytes.length % 4096).toBe(0);
    expect(bytes.subarray(0, 8).toString('latin1')).toBe(BITMAP_MAGIC);
    expect(bytes.readBigUInt64LE(16)).toBe(100_000n);
    expect(bytes[HEADER_BYTES + 1]).toBe(1 << 1); // uin 9
    expect(bytes[HEADER_BYTES + (99_999 >>> 3)]).toBe(1 << (99_999 & 7));
    expect(SharedOnlineBitmap.inspect(file)).toMatchObject({
      uinLimit: 100_000,
      wordCount: 3125,
      writerPid: process.pid,
      online: 2,
      fileBytes: bytes.length,
    });
  });

  it('a reopened writer keeps the bits (a restarted presence agent carries on)', () => {
    const first = SharedOnlineBitmap.openWriter(file, 5000);
    expect(first.created).toBe(true);
    first.setOnline(4321, true);
    first.close();
    const again = track(SharedOnlineBitmap.openWriter(file, 5000));
    expect(again.created).toBe(false);
    expect(again.isOnline(4321)).toBe(true);
    expect(again.isOnline(4320)).toBe(false);
    expect(readdirSync(dir.path)).toEqual(['online.bitmap']); // no temporary file left behind
  });

  it('handles a uinLimit that is not a multiple of 32: the last uin works, the next is out of range', () => {
    const writer = track(SharedOnlineBitmap.openWriter(file, 1000));
    const reader = track(SharedOnlineBitmap.openReader(file));
    writer.setOnline(999, true);
    expect(reader.uinLimit).toBe(1000);
    expect(reader.isOnline(999)).toBe(true);
    expect(reader.isOnline(1000)).toBe(false);
    expect(() => writer.setOnline(1000, true)).toThrow(RangeError);
    expect(SharedOnlineBitmap.inspect(file).wordCount).toBe(32);
  });

  it('takes the largest uin space: 2^32 uins, 2^27 words, the file stays sparse until written', () => {
    const writer = track(SharedOnlineBitmap.openWriter(file, 2 ** 32));
    writer.setOnline(2 ** 32 - 1, true);
    const reader = track(SharedOnlineBitmap.openReader(file, 2 ** 32));
    expect(reader.isOnline(2 ** 32 - 1)).toBe(true);
    expect(reader.isOnline(2 ** 32 - 2)).toBe(false);
  });

  it('one writer at a time: a second writer gets WRITER_EXISTS (retriable) until the first closes', () => {
    const first = SharedOnlineBitmap.openWriter(file, 64);
    const error = throwsWith(() => SharedOnlineBitmap.openWriter(file, 64), 'UNAVAILABLE', 'WRITER_EXISTS');
    expect(error.retriable).toBe(true);
    first.close();
    track(SharedOnlineBitmap.openWriter(file, 64));
  });

  it('after close() every call throws CLOSED, and close() is idempotent', () => {
    const writer = SharedOnlineBitmap.openWriter(file, 64);
    const reader = SharedOnlineBitmap.openReader(file, 64);
    writer.close();
    writer.close();
    reader.close();
    throwsWith(() => writer.setOnline(1, true), 'STORE_CLOSED', 'CLOSED');
    throwsWith(() => writer.isOnline(1), 'STORE_CLOSED', 'CLOSED');
    throwsWith(() => reader.isOnline(1), 'STORE_CLOSED', 'CLOSED');
    throwsWith(
      () => reader.partition(new Uint32Array(1), new Uint32Array(1), new Uint32Array(1)),
      'STORE_CLOSED',
      'CLOSED',
    );
  });

  it('a reader has no way to write: no setOnline, no reachable words', () => {
    track(SharedOnlineBitmap.openWriter(file, 64));
    const reader = track(SharedOnlineBitmap.openReader(file, 64));
    expect('setOnline' in reader).toBe(false);
    expect(Object.keys(reader).some((key) => /word|view|buffer/i.test(key))).toBe(false);
  });

  describe('typed errors naming the path', () => {
    function writeFile(bytes: Buffer): void {
      writeFileSync(file, bytes);
    }
    function validHeader(uinLimit: number): Buffer {
      const writer = SharedOnlineBitmap.openWriter(file, uinLimit);
      writer.close();
      return readFileSync(file);
    }

    it('writer: a missing directory is CONFIG_INVALID / NO_DIRECTORY (creating it is not the writer job)', () => {
      const error = throwsWith(
        () => SharedOnlineBitmap.openWriter(join(dir.path, 'missing', 'online.bitmap'), 64),
        'CONFIG_INVALID',
        'NO_DIRECTORY',
      );
      expect(error.message).toContain(join(dir.path, 'missing'));
    });

    it('reader: a missing file is NOT_FOUND, retriable (the writer may not have started yet)', () => {
      const error = throwsWith(() => SharedOnlineBitmap.openReader(file, 64), 'NOT_FOUND', 'NOT_FOUND');
      expect(error.retriable).toBe(true);
      expect(error.path).toBe(file);
      expect(error.message).toContain(file);
    });

    it('an empty or short file is TOO_SHORT, for the reader and the writer (which leaves it alone)', () => {
      writeFile(Buffer.alloc(0));
      throwsWith(() => SharedOnlineBitmap.openReader(file), 'CONFIG_INVALID', 'TOO_SHORT');
      throwsWith(() => SharedOnlineBitmap.openWriter(file, 64), 'CONFIG_INVALID', 'TOO_SHORT');
      writeFile(Buffer.alloc(100));
      throwsWith(() => SharedOnlineBitmap.openReader(file), 'CONFIG_INVALID', 'TOO_SHORT');
      // A valid header whose words were cut off.
      rmSync(file);
      writeFile(validHeader(1 << 16));
      truncateSync(file, HEADER_BYTES + 100);
      const error = throwsWith(() => SharedOnlineBitmap.openReader(file, 1 << 16), 'CONFIG_INVALID', 'TOO_SHORT');
      expect(error.details).toMatchObject({ fileBytes: HEADER_BYTES + 100, neededBytes: HEADER_BYTES + 8192 });
      throwsWith(() => SharedOnlineBitmap.openWriter(file, 1 << 16), 'CONFIG_INVALID', 'TOO_SHORT');
      expect(readFileSync(file).length).toBe(HEADER_BYTES + 100);
    });

    it('a file that is not a bitmap is BAD_MAGIC, and the writer does not overwrite it', () => {
      const other = Buffer.alloc(8192, 'some other file ');
      writeFile(other);
      throwsWith(() => SharedOnlineBitmap.openReader(file), 'CONFIG_INVALID', 'BAD_MAGIC');
      throwsWith(() => SharedOnlineBitmap.openWriter(file, 64), 'CONFIG_INVALID', 'BAD_MAGIC');
      expect(readFileSync(file).equals(other)).toBe(true);
    });

    it('another format version is UNSUPPORTED_VERSION', () => {
      const bytes = validHeader(64);
      bytes.writeUInt32LE(2, 8);
      writeFile(bytes);
      throwsWith(() => SharedOnlineBitmap.openReader(file), 'CONFIG_INVALID', 'UNSUPPORTED_VERSION');
      throwsWith(() => SharedOnlineBitmap.openWriter(file, 64), 'CONFIG_INVALID', 'UNSUPPORTED_VERSION');
    });

    it('a header whose fields disagree is BAD_HEADER', () => {
      const bytes = validHeader(64);
      bytes.writeBigUInt64LE(3n, 24); // word count for 64 uins is 2
      writeFile(bytes);
      throwsWith(() => SharedOnlineBitmap.openReader(file), 'CONFIG_INVALID', 'BAD_HEADER');
    });

    it('a file made for another uin space is UIN_LIMIT_MISMATCH, for the reader and the writer (bits kept)', () => {
      const writer = SharedOnlineBitmap.openWriter(file, 1 << 16);
      writer.setOnline(5, true);
      writer.close();
      const error = throwsWith(
        () => SharedOnlineBitmap.openReader(file, 1 << 20),
        'CONFIG_INVALID',
        'UIN_LIMIT_MISMATCH',
      );
      expect(error.details).toMatchObject({ fileUinLimit: 1 << 16, configuredUinLimit: 1 << 20 });
      throwsWith(() => SharedOnlineBitmap.openWriter(file, 1 << 20), 'CONFIG_INVALID', 'UIN_LIMIT_MISMATCH');
      expect(SharedOnlineBitmap.inspect(file)).toMatchObject({ uinLimit: 1 << 16, online: 1 });
    });

    it('a uinLimit outside [1, 2^32] is BAD_UIN_LIMIT', () => {
      for (const bad of [0, -1, 1.5, 2 ** 32 + 1, Number.NaN]) {
        throwsWith(() => SharedOnlineBitmap.openWriter(file, bad), 'CONFIG_INVALID', 'BAD_UIN_LIMIT');
        throwsWith(() => SharedOnlineBitmap.openReader(file, bad), 'CONFIG_INVALID', 'BAD_UIN_LIMIT');
      }
    });

    it('the system refusing is OS_ERROR with the errno (a directory where the file should be)', () => {
      const fd = openSync(join(dir.path, 'plain-file'), 'w');
      writeSync(fd, 'x');
      closeSync(fd);
      const error = throwsWith(() => SharedOnlineBitmap.openReader(dir.path), 'CONFIG_INVALID', 'OS_ERROR');
      expect(error.details).toMatchObject({ errno: 'EISDIR' });
      throwsWith(() => SharedOnlineBitmap.openWriter(dir.path, 64), 'CONFIG_INVALID', 'OS_ERROR'); // EISDIR
      throwsWith(
        () => SharedOnlineBitmap.openWriter(join(dir.path, 'plain-file', 'x'), 64),
        'CONFIG_INVALID',
        'NO_DIRECTORY',
      );
    });
  });
});
