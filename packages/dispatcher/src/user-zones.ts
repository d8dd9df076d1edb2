/*
 * Each recipient's zone from the attribute index's `tz=<zone>` bitsets
 * (docs/local-time.md, "Each recipient's zone"): a few dozen keys read chunk
 * by chunk, whatever the audience's size, never one row per user. Shared by
 * local-time grouping (local-groups.ts) and the frequency link
 * (filters/frequency.ts), which each map a zone key to their own number.
 */
import type { AttributeIndex, StoredChunk } from '@herald/core/ports';
import { CHUNK_BITS, CHUNK_UINS, storedMembersInto } from '@herald/core/targeting';

/** Chunks of the first attribute-index read (2^24 uins); later reads are sized by what the last one held (nextWindow). */
const FIRST_WINDOW = 256;
/** Every chunk of the 2^32 uin space. */
const ALL_CHUNKS = 2 ** 16;
/** What one read may hold, counting each row at ROW_BYTES more than its stored bytes (its object and Buffer). */
const READ_BYTES = 16 << 20;
const ROW_BYTES = 128;
/** A read's window grows at most this many times over the last one's, so a sparse stretch before a dense one costs a few reads, not memory. */
const MAX_GROWTH = 4;
/** Marks a uin of the chunk being read that has no `tz` bitset: it keeps the caller's default. */
const NO_ZONE = 0xffff;
/*
 * Module-local copies of the imported constants and function: an imported
 * binding compiles to a read of the package's export (a getter, through its
 * re-exports) at every use, and the loops below run per recipient. With the
 * copies, valuePerPosition over 2.9 x 10^6 recipients in 24 zones took 49 ms
 * instead of 91 ms.
 */
const SHIFT = CHUNK_BITS;
const LOW_BITS = CHUNK_UINS - 1;
const membersInto = storedMembersInto;

/**
 * Sets `valueAt[i]` to `keyValues[k]` for each position i of `kept` (sorted,
 * distinct) whose uin is in the bitset `zoneKeys[k]`; a position in none
 * keeps what the caller filled it with (its default). Values must be below
 * 0xffff.
 */
export async function valuePerPosition<A extends Uint8Array | Uint16Array>(
  kept: Uint32Array,
  zoneKeys: readonly string[],
  keyValues: readonly number[],
  index: AttributeIndex,
  valueAt: A,
): Promise<A> {
  if (zoneKeys.length === 0 || kept.length === 0) return valueAt;
  const keyIndex = new Map(zoneKeys.map((key, i) => [key, i]));
  // Each chunk's uins' values by their low 16 bits; only the entries a chunk set are reset after it,
  // so a sparse audience over many chunks costs its members, not 2^16 a chunk.
  const lowValue = new Uint16Array(CHUNK_UINS).fill(NO_ZONE);
  const touched = new Uint32Array(CHUNK_UINS);
  const lastChunk = kept[kept.length - 1]! >>> SHIFT;
  const readFrom = (position: number, window: number) => {
    const from = kept[position]! >>> SHIFT;
    // Never past the audience's last chunk: a small audience reads only the chunks it spans.
    const to = Math.min(from + window, lastChunk + 1);
    return { to, rows: index.readChunks(zoneKeys, from, to) };
  };
  let window = FIRST_WINDOW;
  let read = readFrom(0, window);
  let at = 0;
  while (at < kept.length) {
    const stored = await read.rows;
    const next = firstPositionAtChunk(kept, at, read.to);
    // The next window is read while this one fills: the store's threads work while this one does.
    if (next < kept.length) {
      window = nextWindow(window, stored);
      read = readFrom(next, window);
      // Handled here too: were this window's filling to throw, the read ahead fails unobserved.
      read.rows.catch(() => undefined);
    }
    at = fillWindow(kept, at, next, stored, keyIndex, keyValues, valueAt, lowValue, touched);
  }
  return valueAt;
}

/** The first position from `at` whose uin's chunk is `chunk` or later (binary search: `kept` is sorted). */
function firstPositionAtChunk(kept: Uint32Array, at: number, chunk: number): number {
  const uin = chunk * CHUNK_UINS;
  let lo = at;
  let hi = kept.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (kept[mid]! < uin) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The window of the next read: about READ_BYTES at the density of the last
 * one. A zone walk over 10^7 recipients spread over 2^32 reads ~1.5 x 10^6
 * rows; in windows of 256 chunks that was 256 reads of 24 iterators each,
 * most of the walk's time.
 */
function nextWindow(window: number, stored: readonly StoredChunk[]): number {
  let held = stored.length * ROW_BYTES;
  for (const row of stored) held += row.bytes.byteLength;
  const fits = held === 0 ? ALL_CHUNKS : Math.floor((window * READ_BYTES) / held);
  return Math.max(FIRST_WINDOW, Math.min(fits, window * MAX_GROWTH, ALL_CHUNKS));
}

/**
 * Sets the values of the positions in [at, end) from the window's rows
 * (ordered by chunk then key): one pass per chunk fills its uins' values,
 * then its positions read them.
 */
function fillWindow(
  kept: Uint32Array,
  at: number,
  end: number,
  stored: readonly StoredChunk[],
  keyIndex: ReadonlyMap<string, number>,
  keyValues: readonly number[],
  valueAt: Uint8Array | Uint16Array,
  lowValue: Uint16Array,
  touched: Uint32Array,
): number {
  let s = 0;
  while (at < end) {
    const chunk = kept[at]! >>> SHIFT;
    // Rows of chunks no recipient is in are passed over.
    while (s < stored.length && stored[s]!.chunk < chunk) s++;
    let set = 0;
    for (; s < stored.length && stored[s]!.chunk === chunk; s++) {
      const value = keyValues[keyIndex.get(stored[s]!.key)!]!;
      const first = set;
      set = membersInto(stored[s]!.bytes, touched, set);
      for (let t = first; t < set; t++) lowValue[touched[t]!] = value;
    }
    for (; at < end && kept[at]! >>> SHIFT === chunk; at++) {
      const value = lowValue[kept[at]! & LOW_BITS]!;
      if (value !== NO_ZONE) valueAt[at] = value;
    }
    for (let t = 0; t < set; t++) lowValue[touched[t]!] = NO_ZONE;
  }
  return at;
}
