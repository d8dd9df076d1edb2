/**
 * What a change of users' attributes does to the bitsets: the bits to set
 * and clear, grouped by (bitset key, chunk), so an adapter reads each
 * touched chunk once, edits it and writes it back (or deletes it when it
 * empties) in one atomic write. Pure: both AttributeIndex adapters use it.
 */
import { userBitsetKeys, type UserAttributes } from './attributes';
import { chunkOf, setChunkBit } from './bitset-chunk';

export interface UserChange {
  /** What the index holds for the user now; undefined: not in the index. */
  before: UserAttributes | undefined;
  /** What it should hold; undefined: remove the user. */
  after: UserAttributes | undefined;
}

export interface ChunkEdit {
  key: string;
  chunk: number;
  /** Uins to add to the bitset (all in this chunk). */
  set: number[];
  /** Uins to take out. */
  clear: number[];
}

/** The last entry per uin, in first-seen order: a uin twice in one put counts once, as its last value. */
export function lastPerUin<T extends { uin: number }>(users: readonly T[]): T[] {
  const byUin = new Map<number, T>();
  for (const user of users) {
    byUin.delete(user.uin);
    byUin.set(user.uin, user);
  }
  return [...byUin.values()];
}

/** The chunk edits of some users' changes, ordered by key then chunk (a stable lock order for adapters). */
export function chunkEdits(changes: readonly UserChange[]): ChunkEdit[] {
  const edits = new Map<string, ChunkEdit>();
  const edit = (key: string, uin: number): ChunkEdit => {
    const chunk = chunkOf(uin);
    const id = `${key}\u0000${chunk}`;
    let found = edits.get(id);
    if (found === undefined) {
      found = { key, chunk, set: [], clear: [] };
      edits.set(id, found);
    }
    return found;
  };
  for (const { before, after } of changes) {
    const uin = (after ?? before)?.uin;
    if (uin === undefined) continue;
    const old = new Set(before === undefined ? [] : userBitsetKeys(before));
    const next = new Set(after === undefined ? [] : userBitsetKeys(after));
    for (const key of old) if (!next.has(key)) edit(key, uin).clear.push(uin);
    for (const key of next) if (!old.has(key)) edit(key, uin).set.push(uin);
  }
  return [...edits.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.chunk - b.chunk));
}

/** Applies an edit to the chunk's words in place (clears first, then sets). */
export function applyChunkEdit(words: Uint32Array, edit: ChunkEdit): Uint32Array {
  for (const uin of edit.clear) setChunkBit(words, uin, false);
  for (const uin of edit.set) setChunkBit(words, uin, true);
  return words;
}
