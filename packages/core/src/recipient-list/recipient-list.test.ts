import { crc32 } from 'node:zlib';
import { HeraldError, ListFormatError } from '../errors';
import { RecipientListDecoder } from './decoder';
import { encodeRecipientList, RecipientListEncoder } from './encoder';
import {
  decodeListHeader,
  encodeListHeader,
  LIST_HEADER_BYTES,
  LIST_MAGIC,
  LIST_VERSION,
  ListFlags,
  UIN_BYTES,
} from './format';
import { seededRandom } from '../random';

type Chunker = (bytes: Buffer) => Uint8Array[];

const whole: Chunker = (bytes) => [bytes];
const oneByte: Chunker = (bytes) => Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
const fixed =
  (size: number): Chunker =>
  (bytes) => {
    const out: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
    return out;
  };
/** Random sizes 1..max, each chunk copied to an odd offset of its own ArrayBuffer (unaligned reads). */
const randomChunks =
  (seed: number, max: number): Chunker =>
  (bytes) => {
    const random = seededRandom(seed);
    const out: Uint8Array[] = [];
    for (let i = 0; i < bytes.length;) {
      const size = 1 + Math.floor(random() * max);
      const part = bytes.subarray(i, i + size);
      const home = new Uint8Array(part.length + 3);
      home.set(part, 3);
      out.push(home.subarray(3));
      i += size;
    }
    return out;
  };

function decode(
  file: Buffer,
  chunker: Chunker = whole,
  uinLimit?: number,
): { uins: number[]; header: ReturnType<RecipientListDecoder['end']> } {
  const decoder = new RecipientListDecoder(uinLimit);
  const uins: number[] = [];
  for (const chunk of chunker(file)) for (const uin of decoder.push(chunk)) uins.push(uin);
  const header = decoder.end();
  expect(decoder.decoded).toBe(uins.length);
  return { uins, header };
}

/** The ListFormatError that decoding throws, from push() or end(). */
function decodeError(file: Buffer, chunker: Chunker = whole, uinLimit?: number): ListFormatError {
  try {
    decode(file, chunker, uinLimit);
  } catch (error) {
    expect(error).toBeInstanceOf(ListFormatError);
    expect(error).toBeInstanceOf(HeraldError);
    return error as ListFormatError;
  }
  throw new Error('decoding did not throw');
}

/** A header written byte by byte, with a correct header CRC unless one is given. */
function rawHeader(fields: {
  magic?: number;
  version?: number;
  flags?: number;
  count?: bigint;
  bodyCrc?: number;
  headerCrc?: number;
  reserved?: number;
}): Buffer {
  const buf = Buffer.alloc(LIST_HEADER_BYTES);
  buf.writeUInt32LE(fields.magic ?? LIST_MAGIC, 0);
  buf.writeUInt16LE(fields.version ?? 1, 4);
  buf.writeUInt16LE(fields.flags ?? 0, 6);
  buf.writeBigUInt64LE(fields.count ?? 0n, 8);
  buf.writeUInt32LE(fields.bodyCrc ?? 0, 16);
  buf.writeUInt32LE(fields.headerCrc ?? crc32(buf.subarray(0, 20)), 20);
  if (fields.reserved !== undefined) buf[31] = fields.reserved;
  return buf;
}

/** A body of u64 LE uins written by hand (so the high word can be set). */
function rawBody(uins: readonly bigint[]): Buffer {
  const buf = Buffer.alloc(uins.length * 8);
  uins.forEach((uin, i) => buf.writeBigUInt64LE(uin, i * 8));
  return buf;
}

function randomUins(n: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => (i % 17 === 0 ? 0xffffffff - (i % 3) : Math.floor(random() * 2 ** 32)));
}

describe('recipient-list format', () => {
  it('encodes [1, 2, 0xffffffff] SORTED|UNIQUE to the committed bytes', () => {
    const expectedHex =
      '48524c53' + // magic "HRLS"
      '0100' + // version 1
      '0300' + // flags SORTED|UNIQUE
      '0300000000000000' + // count 3
      'f2aa993f' + // body CRC-32
      'd3ee0379' + // header CRC-32 of bytes 0..19
      '0000000000000000' + // reserved
      '0100000000000000' +
      '0200000000000000' +
      'ffffffff00000000';
    const file = encodeRecipientList([1, 2, 0xffffffff], ListFlags.SORTED | ListFlags.UNIQUE);
    expect(file.toString('hex')).toBe(expectedHex);
    // The checksums in the fixture are plain IEEE CRC-32s of the ranges the format names.
    expect(file.readUInt32LE(16)).toBe(crc32(file.subarray(32)));
    expect(file.readUInt32LE(20)).toBe(crc32(file.subarray(0, 20)));
    expect(decode(Buffer.from(expectedHex, 'hex'), oneByte).uins).toEqual([1, 2, 0xffffffff]);
  });

  it('has the documented constants', () => {
    expect(Buffer.from('HRLS').readUInt32LE(0)).toBe(LIST_MAGIC);
    expect(LIST_VERSION).toBe(1);
    expect(LIST_HEADER_BYTES).toBe(32);
    expect(UIN_BYTES).toBe(8);
    expect(ListFlags).toEqual({ SORTED: 1, UNIQUE: 2 });
  });

  it('round-trips a header through encodeListHeader and decodeListHeader', () => {
    for (const flags of [0, ListFlags.SORTED, ListFlags.UNIQUE, ListFlags.SORTED | ListFlags.UNIQUE]) {
      const header = { flags, count: 123_456_789_012, bodyCrc: 0xdeadbeef };
      expect(decodeListHeader(encodeListHeader(header))).toEqual({ version: 1, ...header });
    }
    expect(decodeListHeader(encodeListHeader({ flags: 0, count: Number.MAX_SAFE_INTEGER, bodyCrc: 0 })).count).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('decodeListHeader rejects fewer than 32 bytes as LIST_TRUNCATED', () => {
    expect(() => decodeListHeader(new Uint8Array(0))).toThrow(expect.objectContaining({ code: 'LIST_TRUNCATED' }));
    expect(() => decodeListHeader(encodeListHeader({ flags: 0, count: 0, bodyCrc: 0 }).subarray(0, 31))).toThrow(
      expect.objectContaining({ code: 'LIST_TRUNCATED' }),
    );
  });
});

describe('RecipientListDecoder round trip', () => {
  const chunkers: [string, Chunker][] = [
    ['whole', whole],
    ['1-byte chunks', oneByte],
    ['7-byte chunks', fixed(7)],
    ['33-byte chunks', fixed(33)],
    ['random chunks up to 20 bytes', randomChunks(1, 20)],
    ['random chunks up to 5000 bytes', randomChunks(2, 5000)],
  ];

  describe.each(chunkers)('%s', (_name, chunker) => {
    it.each([0, 1, 2, 1000, 20_000])('decodes %i uins to what was encoded', (n) => {
      const uins = randomUins(n, n + 1);
      const file = encodeRecipientList(uins, ListFlags.UNIQUE);
      expect(file.length).toBe(32 + 8 * n);
      const { uins: out, header } = decode(file, chunker);
      expect(out).toEqual(uins);
      expect(header).toEqual({ version: 1, flags: ListFlags.UNIQUE, count: n, bodyCrc: crc32(file.subarray(32)) });
    });
  });

  it('exposes the header once its 32 bytes have arrived, and counts decoded uins', () => {
    const file = encodeRecipientList([10, 20, 30], ListFlags.SORTED);
    const decoder = new RecipientListDecoder();
    expect(decoder.push(file.subarray(0, 31))).toEqual(new Uint32Array(0));
    expect(decoder.listHeader).toBeUndefined();
    expect(decoder.push(file.subarray(31, 32 + 12))).toEqual(Uint32Array.of(10));
    expect(decoder.listHeader).toEqual({
      version: 1,
      flags: ListFlags.SORTED,
      count: 3,
      bodyCrc: crc32(file.subarray(32)),
    });
    expect(decoder.decoded).toBe(1);
    expect(decoder.push(file.subarray(32 + 12))).toEqual(Uint32Array.of(20, 30));
    expect(decoder.decoded).toBe(3);
    expect(decoder.end()).toEqual(decoder.listHeader);
  });

  it('produces the same file from a streaming encoder fed in batches', () => {
    const uins = randomUins(5000, 9);
    const encoder = new RecipientListEncoder();
    const bodies = [
      encoder.body(uins.slice(0, 1)),
      encoder.body([]),
      encoder.body(uins.slice(1, 2999)),
      encoder.body(Uint32Array.from(uins.slice(2999))),
    ];
    expect(encoder.encoded).toBe(5000);
    const file = Buffer.concat([encoder.header(ListFlags.SORTED), ...bodies]);
    expect(file.equals(encodeRecipientList(uins, ListFlags.SORTED))).toBe(true);
    expect(decode(file, randomChunks(4, 100)).uins).toEqual(uins);
  });

  it('keeps the running body CRC across an empty batch', () => {
    const encoder = new RecipientListEncoder();
    const first = encoder.body([7]);
    const empty = encoder.body([]);
    expect(empty.length).toBe(0);
    const last = encoder.body(new Uint32Array(0));
    expect(encoder.header(0).readUInt32LE(16)).toBe(crc32(first));
    expect(decode(Buffer.concat([encoder.header(0), first, empty, last])).uins).toEqual([7]);
  });

  it('accepts uins up to uinLimit - 1', () => {
    const limit = 2 ** 20;
    expect(decode(encodeRecipientList([0, limit - 1]), whole, limit).uins).toEqual([0, limit - 1]);
  });

  it('rejects a uinLimit outside (0, 2^32]', () => {
    expect(() => new RecipientListDecoder(0)).toThrow(RangeError);
    expect(() => new RecipientListDecoder(2 ** 32 + 1)).toThrow(RangeError);
    expect(() => new RecipientListDecoder(Number.NaN)).toThrow(RangeError);
  });
});

describe('RecipientListDecoder errors', () => {
  const good = encodeRecipientList([5, 6, 7, 8], ListFlags.SORTED | ListFlags.UNIQUE);

  it('reports an empty input as LIST_TRUNCATED at end()', () => {
    const decoder = new RecipientListDecoder();
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: 'LIST_TRUNCATED' }));
    const pushedNothing = new RecipientListDecoder();
    pushedNothing.push(new Uint8Array(0));
    expect(() => pushedNothing.end()).toThrow(ListFormatError);
    expect(decodeError(Buffer.alloc(0)).code).toBe('LIST_TRUNCATED');
  });

  it.each([1, 8, 31])('reports a %i-byte header as LIST_TRUNCATED at end()', (length) => {
    const decoder = new RecipientListDecoder();
    expect(decoder.push(good.subarray(0, length)).length).toBe(0);
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: 'LIST_TRUNCATED' }));
  });

  it('reports a wrong magic as LIST_BAD_MAGIC', () => {
    const wrong = Buffer.from(good);
    wrong.write('HRLX', 0, 'latin1');
    expect(decodeError(wrong).code).toBe('LIST_BAD_MAGIC');
    expect(decodeError(wrong, oneByte).code).toBe('LIST_BAD_MAGIC');
    // Even with a header CRC that matches the wrong magic.
    expect(decodeError(rawHeader({ magic: 0x12345678 })).code).toBe('LIST_BAD_MAGIC');
    expect(decodeError(Buffer.alloc(64)).code).toBe('LIST_BAD_MAGIC');
  });

  it.each([0, 2, 0xffff])('reports version %i (with a correct header CRC) as LIST_UNSUPPORTED_VERSION', (version) => {
    const header = rawHeader({ version, flags: 0, count: 0n, bodyCrc: 0 });
    expect(header.readUInt32LE(20)).toBe(crc32(header.subarray(0, 20)));
    const error = decodeError(header);
    expect(error.code).toBe('LIST_UNSUPPORTED_VERSION');
    expect(error.details).toEqual({ version });
  });

  it('reads a hand-built version 1 header with a correct CRC (so the rawHeader helper is sound)', () => {
    const body = rawBody([5n, 6n]);
    expect(decode(Buffer.concat([rawHeader({ count: 2n, bodyCrc: crc32(body) }), body])).uins).toEqual([5, 6]);
  });

  it.each(Array.from({ length: 26 }, (_, i) => i + 6))(
    'reports a corrupted header byte %i as LIST_BAD_HEADER',
    (offset) => {
      const corrupt = Buffer.from(good);
      corrupt[offset]! ^= 0x10;
      expect(decodeError(corrupt).code).toBe('LIST_BAD_HEADER');
      expect(decodeError(corrupt, oneByte).code).toBe('LIST_BAD_HEADER');
    },
  );

  it('reports unknown flags as LIST_BAD_HEADER even when the header CRC matches', () => {
    expect(decodeError(rawHeader({ flags: 4 })).code).toBe('LIST_BAD_HEADER');
    expect(decodeError(rawHeader({ flags: 0x8000 })).code).toBe('LIST_BAD_HEADER');
  });

  it('reports an implausible count as LIST_BAD_HEADER even when the header CRC matches', () => {
    expect(decodeError(rawHeader({ count: BigInt(Number.MAX_SAFE_INTEGER) + 1n })).code).toBe('LIST_BAD_HEADER');
    expect(decodeError(rawHeader({ count: 0xffffffffffffffffn })).code).toBe('LIST_BAD_HEADER');
  });

  it('reports non-zero reserved bytes as LIST_BAD_HEADER', () => {
    expect(decodeError(rawHeader({ reserved: 1 })).code).toBe('LIST_BAD_HEADER');
  });

  it.each([1, 7, 8, 9, 32])('reports a body missing its last %i bytes as LIST_TRUNCATED', (missing) => {
    const cut = good.subarray(0, good.length - missing);
    for (const chunker of [whole, oneByte]) {
      const error = decodeError(cut, chunker);
      expect(error.code).toBe('LIST_TRUNCATED');
      expect(error.details).toEqual({ declared: 4, found: Math.floor((cut.length - 32) / 8) });
    }
  });

  it.each([1, 3, 7, 8, 9, 16])('reports %i extra body bytes as LIST_TRAILING_BYTES', (extra) => {
    const long = Buffer.concat([good, Buffer.alloc(extra, 0x01)]);
    for (const chunker of [whole, oneByte, fixed(5)]) {
      const error = decodeError(long, chunker);
      expect(error.code).toBe('LIST_TRAILING_BYTES');
      expect(error.details).toEqual({ declared: 4 });
    }
  });

  it('reports extra bytes after an empty list as LIST_TRAILING_BYTES', () => {
    const empty = encodeRecipientList([]);
    expect(decode(empty).uins).toEqual([]);
    expect(decodeError(Buffer.concat([empty, Buffer.alloc(3)])).code).toBe('LIST_TRAILING_BYTES');
    expect(decodeError(Buffer.concat([empty, Buffer.alloc(8)])).code).toBe('LIST_TRAILING_BYTES');
  });

  it.each([32, 35, 40, 59])('reports a flipped body byte at offset %i as LIST_CHECKSUM_MISMATCH', (offset) => {
    // Offsets in the low words of the uins, so every uin stays in range.
    const flipped = Buffer.from(good);
    flipped[offset]! ^= 0x01;
    for (const chunker of [whole, oneByte]) expect(decodeError(flipped, chunker).code).toBe('LIST_CHECKSUM_MISMATCH');
  });

  it('reports a uin at or above uinLimit as LIST_UIN_OUT_OF_RANGE with its position', () => {
    const limit = 2 ** 24;
    const uins = Array.from({ length: 1000 }, (_, i) => i);
    uins[777] = limit;
    const file = encodeRecipientList(uins);
    for (const chunker of [whole, oneByte, randomChunks(5, 50)]) {
      const error = decodeError(file, chunker, limit);
      expect(error.code).toBe('LIST_UIN_OUT_OF_RANGE');
      expect(error.details).toEqual({ uin: limit, position: 777, limit });
    }
    expect(decode(file, whole, limit + 1).uins).toEqual(uins);
  });

  it('reports a uin with its high word set as LIST_UIN_OUT_OF_RANGE with its position', () => {
    const body = rawBody([1n, 2n, 3n, 2n ** 32n + 5n, 6n]);
    const file = Buffer.concat([rawHeader({ count: 5n, bodyCrc: crc32(body) }), body]);
    for (const chunker of [whole, oneByte, fixed(12)]) {
      const error = decodeError(file, chunker);
      expect(error.code).toBe('LIST_UIN_OUT_OF_RANGE');
      expect(error.details).toEqual({ uin: 2 ** 32 + 5, position: 3, limit: 2 ** 32 });
    }
    const top = rawBody([0xffffffffffffffffn]);
    expect(decodeError(Buffer.concat([rawHeader({ count: 1n, bodyCrc: crc32(top) }), top])).details).toMatchObject({
      position: 0,
    });
  });

  it('names a uin above 2^53 exactly, in the message and (as a string) in details', () => {
    const top = rawBody([0xffffffffffffffffn]);
    const error = decodeError(Buffer.concat([rawHeader({ count: 1n, bodyCrc: crc32(top) }), top]));
    expect(error.message).toContain('uin 18446744073709551615 at position 0');
    expect(error.details).toEqual({ uin: '18446744073709551615', position: 0, limit: 2 ** 32 });
  });
});
