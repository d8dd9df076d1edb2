/**
 * @module @herald/shared-bitmap
 *
 * The online bitmap in shared memory: one memory-mapped file per host (under
 * /dev/shm by default), one physical copy of the 2^32-bit (512 MiB) bitmap
 * shared by every process on the host. The presence agent opens it as the
 * one writer; executors open it read-only and ask `isOnline` / `partition`.
 * Both sides implement core's OnlineBitmap / OnlineView, so code written
 * against the in-process TypedArrayBitmap runs unchanged. The mapping is made
 * by a small native addon (native/shared_bitmap.c, built by `npm install`).
 * Layout, memory ordering and operations: docs/shared-bitmap.md.
 *
 * @example
 *   import { SharedOnlineBitmap, defaultBitmapPath } from '@herald/shared-bitmap';
 *   const path = defaultBitmapPath(); // /dev/shm/herald-online.bitmap
 *
 *   // presence agent (one per host)
 *   const writer = SharedOnlineBitmap.openWriter(path, 2 ** 32);
 *   writer.setOnline(10001, true);
 *
 *   // executor (any number of processes)
 *   const reader = SharedOnlineBitmap.openReader(path, 2 ** 32);
 *   reader.isOnline(10001); // true
 *   const { online, offline } = reader.partition(batch, onlineOut, offlineOut);
 *   reader.close();
 */
export { SharedOnlineBitmap } from './shared-bitmap';
export type { SharedBitmapWriter, SharedBitmapReader, SharedBitmapOptions, BitmapInfo } from './shared-bitmap';
export { defaultBitmapPath, DEFAULT_BITMAP_FILE } from './default-path';
export { BITMAP_MAGIC, BITMAP_VERSION, HEADER_BYTES, MAX_UIN_LIMIT, bitmapFileBytes } from './format';
export type { BitmapHeader } from './format';
export { SharedBitmapError, SHARED_BITMAP_REASONS } from './errors';
export type { SharedBitmapReason } from './errors';
export type { Advice } from './native';
