/**
 * The follower check over a local copy (docs/audience-sources.md, "Local
 * copies"): which uins of a sorted list follow the account, answered by one
 * sequential scan of the copy's file merged with its changes, instead of a
 * store lookup per uin. Internal: FollowerCopies.filterFollowers uses it.
 */
import { endianness } from 'node:os';
import { LIST_HEADER_BYTES, UIN_BYTES } from '@herald/core/recipient-list';
import { subtractSorted, indexOfSorted } from '@herald/core/uins';
import { ListFormatError } from '@herald/core';
import { openForRead, readFully } from './fs-util';
import { readRecipientListHeader } from './list-reader';

/** A copy's state per uin changed since it was made. */
export type Changes = Map<number, { following: boolean; at: number }>;

/** Bytes read at a time: large sequential reads, as `dd bs=8M` does. */
export const SCAN_BLOCK_BYTES = 8 << 20;

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The uins of `query` (strictly ascending) present in the SORTED | UNIQUE
 * list file at `path`, ascending: a merge of the two, reading the file in
 * SCAN_BLOCK_BYTES blocks and stopping once the query is exhausted. The file
 * was checked when it was installed (FollowerCopies.install), and its length
 * is checked against its header here; its checksum is not (a scan is a
 * lookup, and the sampling before each use is what catches a copy that is
 * wrong).
 */
export async function scanFollowers(
  path: string,
  query: Uint32Array,
  blockBytes = SCAN_BLOCK_BYTES,
): Promise<Uint32Array> {
  const { count } = await readRecipientListHeader(path);
  const out = new Uint32Array(Math.min(count, query.length));
  if (out.length === 0) return out;
  const handle = await openForRead(path);
  try {
    const perBlock = Math.max(1, Math.floor(blockBytes / UIN_BYTES));
    const buffer = Buffer.allocUnsafeSlow(perBlock * UIN_BYTES);
    // Each 8-byte entry is a little-endian uin: its low word is the uin, its high word zero.
    const words = new Uint32Array(buffer.buffer, buffer.byteOffset, perBlock * 2);
    let n = 0;
    let q = 0;
    let wanted = query[0]!;
    for (let at = 0; at < count && q < query.length; at += perBlock) {
      const entries = Math.min(perBlock, count - at);
      const bytes = await readFully(handle, buffer, entries * UIN_BYTES, LIST_HEADER_BYTES + at * UIN_BYTES);
      if (bytes !== entries * UIN_BYTES)
        throw new ListFormatError(
          'LIST_TRUNCATED',
          `follower copy ${path} ended at uin ${at + Math.floor(bytes / UIN_BYTES)} of ${count}`,
          { declared: count },
        );
      if (!LITTLE_ENDIAN) for (let k = 0; k < entries; k++) words[2 * k] = buffer.readUInt32LE(UIN_BYTES * k);
      // The whole block below the next wanted uin: nothing to merge.
      if (words[2 * (entries - 1)]! < wanted) continue;
      for (let k = 0; k < entries; k++) {
        const uin = words[2 * k]!;
        while (wanted < uin) {
          if (++q === query.length) return out.subarray(0, n);
          wanted = query[q]!;
        }
        if (uin === wanted) {
          out[n++] = uin;
          if (++q === query.length) return out.subarray(0, n);
          wanted = query[q]!;
        }
      }
    }
    return out.subarray(0, n);
  } finally {
    await handle.close();
  }
}

/**
 * What follows now among `query`, given those of it in the copy's file
 * (`inBase`, ascending) and the changes since: the base minus the uins whose
 * winning change is an unfollow, plus the uins of the query whose winning
 * change is a follow. Walks the changes, not the query: they are few.
 */
export function applyChanges(inBase: Uint32Array, query: Uint32Array, changes: Changes): Uint32Array {
  if (changes.size === 0) return inBase;
  const left: number[] = [];
  const joined: number[] = [];
  for (const [uin, { following }] of changes) {
    if (!following) left.push(uin);
    else if (indexOfSorted(query, uin) >= 0) joined.push(uin);
  }
  const kept = subtractSorted(inBase.slice(), Uint32Array.from(left).sort());
  return unionSorted(kept, Uint32Array.from(joined).sort());
}

/** The union of two ascending, distinct arrays, ascending and distinct. */
function unionSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (b.length === 0) return a;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && a[i]! < b[j]!)) out[n++] = a[i++]!;
    else if (i === a.length || b[j]! < a[i]!) out[n++] = b[j++]!;
    else {
      out[n++] = a[i++]!;
      j++;
    }
  }
  return out.subarray(0, n);
}
