/**
 * One worker of the parallel filter chain (filters/parallel.ts). The task's
 * list lies in shared memory and is never copied: one worker cuts it in place
 * into one range of values per worker (value-ranges.ts); then each worker
 * sorts its range in place, dedupes it, subtracts each set it is handed
 * (blacklists, earlier audiences), compacting to the front of its range; at
 * the end one worker lays the kept ranges end to end, which is the sorted
 * filtered list. With `record`, each step also answers what it removed
 * (removals.ts), on a buffer of its own that is transferred, not copied, to
 * the main thread.
 *
 *   split     { list, length, pivots }       -> { kept, bounds }  the list cut in place at the pivots
 *   sort      { list, start, end, record }   -> { kept, removed? }  list[start, end) sorted and deduped:
 *                                                                 the worker's range from now on
 *   subtract  { set, length, record }        -> { kept, removed? }  its range minus a sorted, distinct set
 *   compact   { list, ranges }               -> { kept }         the ranges' kept uins moved end to end
 *                                                                 to the list's front, in order
 */
import { parentPort } from 'node:worker_threads';
import { subtractSorted, uniqueSorted } from '@herald/core/uins';
import { dedupeRecording, subtractRecording, type Removal } from './removals';
import { sortRangeInPlace, splitAtPivots } from './value-ranges';

/** Where a worker's kept uins lie in the list once it has filtered its range. */
export interface KeptRange {
  start: number;
  length: number;
}

export type ChunkRequest =
  | { kind: 'split'; list: SharedArrayBuffer; length: number; pivots: number[] }
  | { kind: 'sort'; list: SharedArrayBuffer; start: number; end: number; record: boolean }
  | { kind: 'subtract'; set: SharedArrayBuffer; length: number; record: boolean }
  | { kind: 'compact'; list: SharedArrayBuffer; ranges: KeptRange[] };

export interface ChunkReply {
  kept: number;
  /** Of a split: where each range starts, and the list's length last. */
  bounds?: number[];
  /** With `record`: the uins the step removed, ascending (a transferred buffer of their own). */
  removed?: ArrayBuffer;
  error?: string;
}

let kept: Uint32Array = new Uint32Array(0);

function handle(request: ChunkRequest): ChunkReply {
  switch (request.kind) {
    case 'split':
      return {
        kept: request.length,
        bounds: splitAtPivots(new Uint32Array(request.list, 0, request.length), request.pivots),
      };
    case 'sort': {
      const { start, end } = request;
      const list = new Uint32Array(request.list);
      sortRangeInPlace(list, start, end);
      kept = list.subarray(start, end);
      return step(request.record, uniqueSorted, dedupeRecording);
    }
    case 'subtract': {
      const set = new Uint32Array(request.set, 0, request.length);
      return step(
        request.record,
        (uins) => subtractSorted(uins, set),
        (uins) => subtractRecording(uins, set),
      );
    }
    case 'compact': {
      // Each range starts at or after the end of those before it, so moving them in order overwrites nothing unread.
      const list = new Uint32Array(request.list);
      let at = 0;
      for (const { start, length } of request.ranges) {
        if (start !== at) list.copyWithin(at, start, start + length);
        at += length;
      }
      return { kept: at };
    }
  }
}

/** Runs one link's step on the chunk, recording what it removed when asked. */
function step(
  record: boolean,
  apply: (uins: Uint32Array) => Uint32Array,
  applyRecording: (uins: Uint32Array) => Removal,
): ChunkReply {
  if (!record) {
    kept = apply(kept);
    return { kept: kept.length };
  }
  const removal = applyRecording(kept);
  kept = removal.kept;
  return { kept: kept.length, removed: removal.removed.buffer as ArrayBuffer };
}

parentPort?.on('message', (request: ChunkRequest) => {
  let reply: ChunkReply;
  try {
    reply = handle(request);
  } catch (error) {
    reply = { kept: 0, error: String(error) };
  }
  // The removed uins move to the main thread: this worker has no further use for them.
  parentPort!.postMessage(reply, reply.removed === undefined ? [] : [reply.removed]);
});
