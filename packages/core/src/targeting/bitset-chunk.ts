/**
 * Per-value bitsets, cut into chunks of 2^16 uins so a bitset over a 2^32
 * uin space costs what its members cost, not 512 MiB. Chunk c covers uins
 * [c * 65536, (c + 1) * 65536). In memory a chunk is 2048 u32 words (bit
 * b of the chunk is bit b & 31 of word b >>> 5); stored, it is one of:
 *
 * - sparse: the members' low 16 bits as u16 LE, strictly ascending, for fewer
 *   than 4096 members (under 8192 bytes);
 * - dense: the 2048 words as u32 LE, exactly 8192 bytes.
 *
 * The length tells which. An empty chunk is never stored (encode answers
 * undefined: delete it). Like a Roaring bitmap's array and bitmap containers,
 * the smaller form wins, so no chunk is over 8 KiB.
 */
import { HeraldError, ErrorCodes } from '../errors';

export const CHUNK_BITS = 16;
export const CHUNK_UINS = 1 << CHUNK_BITS;
export const CHUNK_WORDS = CHUNK_UINS >>> 5;
export const DENSE_CHUNK_BYTES = CHUNK_WORDS * 4;
/** At this many members a chunk is stored dense. */
const SPARSE_LIMIT = 4096;

export function chunkOf(uin: number): number {
  return Math.floor(uin / CHUNK_UINS);
}

export function emptyChunk(): Uint32Array {
  return new Uint32Array(CHUNK_WORDS);
}

/** Sets (or clears) the bit of `uin` in the words of its chunk. */
export function setChunkBit(words: Uint32Array, uin: number, on: boolean): void {
  const bit = uin % CHUNK_UINS;
  const mask = 1 << (bit & 31);
  if (on) words[bit >>> 5]! |= mask;
  else words[bit >>> 5]! &= ~mask;
}

export function chunkHas(words: Uint32Array, uin: number): boolean {
  const bit = uin % CHUNK_UINS;
  return (words[bit >>> 5]! & (1 << (bit & 31))) !== 0;
}

function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) >>> 0;
}

export function chunkCardinality(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < CHUNK_WORDS; i++) if (words[i] !== 0) n += popcount32(words[i]!);
  return n;
}

/** The stored form of a chunk, or undefined when it holds nobody. */
export function encodeChunk(words: Uint32Array): Uint8Array | undefined {
  const members = chunkCardinality(words);
  if (members === 0) return undefined;
  if (members >= SPARSE_LIMIT) {
    const bytes = new Uint8Array(DENSE_CHUNK_BYTES);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < CHUNK_WORDS; i++) view.setUint32(i * 4, words[i]!, true);
    return bytes;
  }
  const bytes = new Uint8Array(members * 2);
  const view = new DataView(bytes.buffer);
  let at = 0;
  for (let i = 0; i < CHUNK_WORDS; i++) {
    let word = words[i]!;
    while (word !== 0) {
      const low = 31 - Math.clz32(word & -word);
      view.setUint16(at, (i << 5) | low, true);
      at += 2;
      word &= word - 1;
    }
  }
  return bytes;
}

function corrupt(message: string, details: Record<string, unknown>): HeraldError {
  return new HeraldError(ErrorCodes.INTERNAL, `bitset chunk: ${message}`, { details });
}

/** The words of a stored chunk, written into `into` (cleared first) when given. A malformed chunk is an INTERNAL error: the index is damaged. */
export function decodeChunk(bytes: Uint8Array, into: Uint32Array = emptyChunk()): Uint32Array {
  into.fill(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength === DENSE_CHUNK_BYTES) {
    for (let i = 0; i < CHUNK_WORDS; i++) into[i] = view.getUint32(i * 4, true);
    return into;
  }
  if (bytes.byteLength === 0 || bytes.byteLength % 2 !== 0 || bytes.byteLength >= SPARSE_LIMIT * 2) {
    throw corrupt(`a stored chunk of ${bytes.byteLength} bytes is neither sparse nor dense`, {
      bytes: bytes.byteLength,
    });
  }
  let previous = -1;
  for (let at = 0; at < bytes.byteLength; at += 2) {
    const bit = view.getUint16(at, true);
    if (bit <= previous) throw corrupt('sparse members are not strictly ascending', { at });
    previous = bit;
    into[bit >>> 5]! |= 1 << (bit & 31);
  }
  return into;
}

/** A stored chunk that is not dense must be a sparse one: an even, non-zero length under the dense one's. */
function checkSparseLength(bytes: Uint8Array): void {
  if (bytes.byteLength === 0 || bytes.byteLength % 2 !== 0 || bytes.byteLength >= SPARSE_LIMIT * 2)
    throw corrupt(`a stored chunk of ${bytes.byteLength} bytes is neither sparse nor dense`, {
      bytes: bytes.byteLength,
    });
}

/**
 * Calls `visit` with the low 16 bits of each member of a stored chunk,
 * ascending: a sparse chunk is read as it is stored, without building its
 * 2^16-bit words (what makes a walk over many sparse chunks cheap). A stored
 * form of a bad length is an INTERNAL error, as for decodeChunk.
 */
export function forEachStoredMember(bytes: Uint8Array, visit: (low: number) => void): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength === DENSE_CHUNK_BYTES) {
    for (let i = 0; i < CHUNK_WORDS; i++) {
      let word = view.getUint32(i * 4, true);
      while (word !== 0) {
        visit((i << 5) | (31 - Math.clz32(word & -word)));
        word &= word - 1;
      }
    }
    return;
  }
  checkSparseLength(bytes);
  for (let at = 0; at < bytes.byteLength; at += 2) visit(view.getUint16(at, true));
}

/**
 * Writes the low 16 bits of each member of a stored chunk, ascending, into
 * `out` from `at`; returns the new end. As forEachStoredMember, without a call
 * per member: a walk over every recipient's zone visits each once, so the
 * per-member call was most of its cost. `out` must have room for the chunk's
 * members (CHUNK_UINS is always enough).
 */
export function storedMembersInto(bytes: Uint8Array, out: Uint32Array, at: number): number {
  // Little-endian assembled from the bytes, not a DataView: a zone walk reads over a million
  // chunks of a few members each, and a DataView a chunk was a third of its time.
  let end = at;
  const length = bytes.byteLength;
  if (length === DENSE_CHUNK_BYTES) {
    for (let i = 0; i < CHUNK_WORDS; i++) {
      const b = i << 2;
      let word = bytes[b]! | (bytes[b + 1]! << 8) | (bytes[b + 2]! << 16) | (bytes[b + 3]! << 24);
      while (word !== 0) {
        out[end++] = (i << 5) | (31 - Math.clz32(word & -word));
        word &= word - 1;
      }
    }
    return end;
  }
  checkSparseLength(bytes);
  for (let i = 0; i < length; i += 2) out[end++] = bytes[i]! | (bytes[i + 1]! << 8);
  return end;
}

/**
 * Appends the uins of the set bits of chunk `chunk` to `out` from `at`, in
 * ascending order; returns the new end. `out` must have room for the chunk's
 * members (CHUNK_UINS is always enough).
 */
export function chunkMembers(words: Uint32Array, chunk: number, out: Uint32Array, at: number): number {
  const base = chunk * CHUNK_UINS;
  let end = at;
  for (let i = 0; i < CHUNK_WORDS; i++) {
    let word = words[i]!;
    while (word !== 0) {
      const low = 31 - Math.clz32(word & -word);
      out[end++] = base + ((i << 5) | low);
      word &= word - 1;
    }
  }
  return end;
}
