/**
 * Brings an attribute index to the current layout when it is opened: an
 * index written before the grouped zone rows existed (zone-rows.ts) has the
 * `tz=` bitsets' 'b' rows and no 'z' rows, and no format marker. The marker is
 * written last, after every 'z' row, so a crash part-way leaves no marker and
 * the next open builds the rows again from the start.
 */
import { TZ_KEY_PREFIX } from '@herald/core/targeting';
import { ErrorCodes, HeraldError } from '@herald/core';
import {
  bitsetsWithPrefix,
  chunkOfKey,
  chunkRange,
  firstUsedChunk,
  FORMAT_KEY,
  ROWS_PER_BATCH_BYTES,
  zoneRowKey,
  zoneRowRange,
  type AttributeDb,
} from './attribute-keys';
import { encodeZoneRow, type ZoneEntry } from './zone-rows';

/** 1: the `tz=` bitsets are also kept as one 'z' row per chunk. */
export const FORMAT_VERSION = 1;

/**
 * Chunks built per batch. A chunk's zones hold each user at most once, so
 * its row is at most ~128 KiB (2^16 users in sparse chunks) and a window at
 * most ~32 MiB, whatever the index's size.
 */
const WINDOW_CHUNKS = 256;
const ALL_CHUNKS = 2 ** 16;

/** Writes the 'z' rows and the marker if the index has no marker yet; checks the marker's version if it has. */
export async function ensureZoneRows(db: AttributeDb): Promise<void> {
  const marker = await db.get(FORMAT_KEY);
  if (marker !== undefined) {
    const version = marker.readUInt32BE(0);
    if (version !== FORMAT_VERSION)
      throw new HeraldError(
        ErrorCodes.UNAVAILABLE,
        `LevelAttributeIndex: the index is in format ${version}, this build reads format ${FORMAT_VERSION}`,
        { details: { version } },
      );
    return;
  }
  // Rows a crashed earlier attempt wrote: the build below writes them all again.
  await db.clear(zoneRowRange(0, ALL_CHUNKS));
  const zones = await bitsetsWithPrefix(db, TZ_KEY_PREFIX);
  if (zones.length > 0) {
    // Empty stretches of the uin space are passed over: each window starts at the next chunk holding anyone.
    for (
      let from = await firstUsedChunk(db, 0);
      from !== undefined;
      from = await firstUsedChunk(db, from + WINDOW_CHUNKS)
    )
      await buildWindow(db, zones, from, from + WINDOW_CHUNKS);
  }
  const value = Buffer.alloc(4);
  value.writeUInt32BE(FORMAT_VERSION, 0);
  await db.put(FORMAT_KEY, value);
}

/** The 'z' rows of chunks [from, to) from the zones' 'b' rows, in one batch. */
async function buildWindow(db: AttributeDb, zones: readonly string[], from: number, to: number): Promise<void> {
  const runs = await Promise.all(
    zones.map((zone) => db.iterator({ ...chunkRange(zone, from, to), highWaterMarkBytes: ROWS_PER_BATCH_BYTES }).all()),
  );
  const byChunk = new Map<number, ZoneEntry[]>();
  runs.forEach((rows, i) => {
    for (const [stored, bytes] of rows) {
      const chunk = chunkOfKey(stored);
      let entries = byChunk.get(chunk);
      if (entries === undefined) byChunk.set(chunk, (entries = []));
      entries.push({ key: zones[i]!, bytes });
    }
  });
  if (byChunk.size === 0) return;
  const batch = db.batch();
  for (const [chunk, entries] of byChunk) batch.put(zoneRowKey(chunk), encodeZoneRow(entries)!);
  await batch.write();
}
