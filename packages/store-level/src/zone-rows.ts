/**
 * The grouped time-zone row of the LevelDB attribute index ('z' chunk): the
 * stored chunks of every `tz=<zone>` bitset for one chunk, in one value. A
 * zone walk (local-time grouping, the frequency link) reads every zone of
 * each chunk, and reading a LevelDB row costs about the same whatever its
 * size (classic-level makes two Buffers of each): one row per chunk instead of
 * one per (zone, chunk) is ~24 times fewer rows for 24 zones. Pure: the
 * adapter reads and writes the rows.
 *
 * Layout: entries in ascending key order (UTF-16 code units, as `<`
 * compares), each key once, at least one entry (a row with none is deleted):
 *
 *   repeated [key length:u16 BE, UTF-16 units][key:UTF-16LE][chunk length:u32 BE][the chunk's stored form]
 */
import type { StoredChunk } from '@herald/core/ports';
import { ErrorCodes, HeraldError } from '@herald/core';

export interface ZoneEntry {
  key: string;
  /** The chunk's stored form (core bitset-chunk.ts): never empty. */
  bytes: Uint8Array;
}

const KEY_LENGTH_BYTES = 2;
const CHUNK_LENGTH_BYTES = 4;
const MAX_KEY_UNITS = 0xffff;

function damaged(message: string, details: Record<string, unknown>): HeraldError {
  return new HeraldError(ErrorCodes.INTERNAL, `zone row: ${message}`, { details });
}

/** The row holding `entries` (any order; each key once), or undefined when there are none. */
export function encodeZoneRow(entries: readonly ZoneEntry[]): Buffer | undefined {
  if (entries.length === 0) return undefined;
  const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  let size = 0;
  sorted.forEach((entry, i) => {
    if (entry.key.length > MAX_KEY_UNITS) throw damaged('a key is too long for its u16 length', { key: entry.key });
    if (entry.bytes.byteLength === 0) throw damaged('an entry holds nobody', { key: entry.key });
    if (i > 0 && sorted[i - 1]!.key === entry.key) throw damaged('a key is given twice', { key: entry.key });
    size += KEY_LENGTH_BYTES + entry.key.length * 2 + CHUNK_LENGTH_BYTES + entry.bytes.byteLength;
  });
  const row = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { key, bytes } of sorted) {
    at = row.writeUInt16BE(key.length, at);
    at += row.write(key, at, 'utf16le');
    at = row.writeUInt32BE(bytes.byteLength, at);
    row.set(bytes, at);
    at += bytes.byteLength;
  }
  return row;
}

/**
 * Appends the row's entries whose key `wanted` holds (all when it is
 * undefined) to `out` as stored chunks of `chunk`, in key order. Each entry's
 * bytes are a view of the row, not a copy. A malformed row is an INTERNAL
 * error: the index is damaged.
 */
export function zoneRowInto(
  row: Uint8Array,
  chunk: number,
  wanted: ReadonlySet<string> | undefined,
  out: StoredChunk[],
): StoredChunk[] {
  const buf = Buffer.isBuffer(row) ? row : Buffer.from(row.buffer, row.byteOffset, row.byteLength);
  const end = buf.byteLength;
  if (end === 0) throw damaged('the row holds no entry', { chunk });
  let at = 0;
  let previous: string | undefined;
  while (at < end) {
    if (at + KEY_LENGTH_BYTES > end) throw damaged('an entry is cut short', { chunk, at });
    const keyEnd = at + KEY_LENGTH_BYTES + buf.readUInt16BE(at) * 2;
    if (keyEnd + CHUNK_LENGTH_BYTES > end) throw damaged('an entry is cut short', { chunk, at });
    const key = buf.toString('utf16le', at + KEY_LENGTH_BYTES, keyEnd);
    const bytesAt = keyEnd + CHUNK_LENGTH_BYTES;
    const length = buf.readUInt32BE(keyEnd);
    if (length === 0 || bytesAt + length > end) throw damaged('an entry is cut short or empty', { chunk, key });
    if (previous !== undefined && !(previous < key)) throw damaged('keys are not strictly ascending', { chunk, key });
    previous = key;
    // A view, not Buffer.subarray: a zone walk makes one per (zone, chunk), and a plain Uint8Array is the cheaper object.
    if (wanted === undefined || wanted.has(key))
      out.push({ key, chunk, bytes: new Uint8Array(buf.buffer, buf.byteOffset + bytesAt, length) });
    at = bytesAt + length;
  }
  return out;
}

/**
 * The row after setting each updated key's stored chunk (undefined: the key
 * no longer holds anyone in this chunk, its entry goes); undefined when no
 * entry is left, i.e. the row is to be deleted.
 */
export function updateZoneRow(
  row: Uint8Array | undefined,
  chunk: number,
  updates: ReadonlyMap<string, Uint8Array | undefined>,
): Buffer | undefined {
  const kept = row === undefined ? [] : zoneRowInto(row, chunk, undefined, []).filter((e) => !updates.has(e.key));
  const entries: ZoneEntry[] = kept;
  for (const [key, bytes] of updates) if (bytes !== undefined) entries.push({ key, bytes });
  return encodeZoneRow(entries);
}
