/**
 * The keys of the LevelDB attribute index (the layout is described in
 * level-attribute-index.ts) and the key-only reads, shared by the adapter
 * and its zone-row migration.
 */
import type { ClassicLevel } from 'classic-level';
import { UNIVERSE_KEY } from '@herald/core/targeting';
import { key, prefixRange, tag } from './keys';

export type AttributeDb = ClassicLevel<Buffer, Buffer>;

export const userKey = (uin: number): Buffer => key(tag('u'), { u32: uin });
export const chunkKey = (bitset: string, chunk: number): Buffer => key(tag('b'), { str: bitset }, { u32: chunk });
export const bitsetPrefix = (bitset: string): Buffer => key(tag('b'), { str: bitset });
export const countKey = (bitset: string): Buffer => key(tag('k'), { tail: bitset });
export const zoneRowKey = (chunk: number): Buffer => key(tag('z'), { u32: chunk });
/** The layout version the index was written in (FORMAT_VERSION); absent before the zone rows existed. */
export const FORMAT_KEY: Buffer = key(tag('F'));

/**
 * Bytes one iterator batch may hold: 1000 rows (abstract-level's batch for
 * `all()`) of sparse chunks fit. classic-level's 16 KiB default stops each
 * batch at ~100 rows: a trip to its threads per 100.
 */
export const ROWS_PER_BATCH_BYTES = 1 << 20;

/** The chunk number ending a 'b' or 'z' key. */
export function chunkOfKey(stored: Buffer): number {
  return stored.readUInt32BE(stored.length - 4);
}

/**
 * Iterator bounds of one bitset's 'b' rows with chunks in [fromChunk, toChunk);
 * toChunk may be 2^32 or more (to the bitset's last row).
 */
export function chunkRange(bitset: string, fromChunk: number, toChunk: number): { gte: Buffer; lt?: Buffer } {
  const upper = toChunk >= 2 ** 32 ? prefixRange(bitsetPrefix(bitset)).lt : chunkKey(bitset, toChunk);
  return { gte: chunkKey(bitset, Math.max(0, fromChunk)), ...(upper ? { lt: upper } : {}) };
}

/** Iterator bounds of the 'z' rows of chunks in [fromChunk, toChunk). */
export function zoneRowRange(fromChunk: number, toChunk: number): { gte: Buffer; lt: Buffer } {
  const upper = toChunk >= 2 ** 32 ? prefixRange(key(tag('z'))).lt! : zoneRowKey(toChunk);
  return { gte: zoneRowKey(Math.max(0, fromChunk)), lt: upper };
}

/** The bitsets whose keys start with `prefix` and hold anyone (their 'k' count rows), ascending. */
export async function bitsetsWithPrefix(db: AttributeDb, prefix: string): Promise<string[]> {
  const tagLength = 1;
  const keys = await db.keys(prefixRange(countKey(prefix))).all();
  return keys.map((k) => k.subarray(tagLength).toString('utf16le')).sort();
}

/** The smallest chunk >= fromChunk in which the universe holds anyone, or undefined. */
export async function firstUsedChunk(db: AttributeDb, fromChunk: number): Promise<number | undefined> {
  const [found] = await db.keys({ ...chunkRange(UNIVERSE_KEY, fromChunk, 2 ** 32), limit: 1 }).all();
  return found === undefined ? undefined : chunkOfKey(found);
}
