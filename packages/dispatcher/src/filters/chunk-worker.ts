/**
 * One worker of the parallel filter chain (filters/parallel.ts). It takes its
 * chunk (the uins whose hash is its part) out of the task's list in shared
 * memory, sorts and dedupes it, subtracts each set it is handed (blacklists,
 * earlier audiences), compacting in place, and at the end merges its range of
 * values from every chunk into the shared output. With `record`, each step
 * also answers what it removed (removals.ts), on a buffer of its own that is
 * transferred, not copied, to the main thread.
 *
 *   take      { list, part, parts }          -> { kept }         its chunk, a copy (with one worker, the
 *                                                                 list itself, where it lies)
 *   sort      { scratch?, record }           -> { kept, chunk, removed? }  its chunk sorted and deduped;
 *                                                                 scratch: the radix sort's room in the list's
 *                                                                 buffer, free once every chunk is taken
 *   subtract  { set, length, record }        -> { kept, removed? }  minus a sorted, distinct set
 *   merge     { slices, out, offset }        -> { kept }         the slices merged into out at offset
 *                                                                 (out is the list's own buffer: the
 *                                                                 chunks are copies, so it is free)
 */
import { parentPort } from 'node:worker_threads';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import { mergeInto, takePart } from './chunks';
import { dedupeRecording, subtractRecording, type Removal } from './removals';

export interface Slice {
  buffer: SharedArrayBuffer;
  start: number;
  end: number;
}

export type ChunkRequest =
  | { kind: 'take'; list: SharedArrayBuffer; length: number; part: number; parts: number }
  | { kind: 'sort'; scratch?: Slice; record: boolean }
  | { kind: 'subtract'; set: SharedArrayBuffer; length: number; record: boolean }
  | { kind: 'merge'; slices: Slice[]; out: SharedArrayBuffer; offset: number };

export interface ChunkReply {
  kept: number;
  chunk?: SharedArrayBuffer;
  /** With `record`: the uins the step removed, ascending (a transferred buffer of their own). */
  removed?: ArrayBuffer;
  error?: string;
}

let kept: Uint32Array = new Uint32Array(0);

function handle(request: ChunkRequest): ChunkReply {
  switch (request.kind) {
    case 'take': {
      // One worker: the whole list is its chunk, sorted where it lies.
      const list = new Uint32Array(request.list, 0, request.length);
      kept = request.parts === 1 ? list : takePart(list, request.part, request.parts);
      return { kept: kept.length };
    }
    case 'sort': {
      const { scratch } = request;
      radixSortUint32(kept, scratch && new Uint32Array(scratch.buffer, scratch.start * 4, scratch.end - scratch.start));
      return step(request.record, uniqueSorted, dedupeRecording, { chunk: kept.buffer as SharedArrayBuffer });
    }
    case 'subtract': {
      const set = new Uint32Array(request.set, 0, request.length);
      return step(
        request.record,
        (uins) => subtractSorted(uins, set),
        (uins) => subtractRecording(uins, set),
      );
    }
    case 'merge': {
      const slices = request.slices.map(({ buffer, start, end }) => new Uint32Array(buffer, start * 4, end - start));
      mergeInto(new Uint32Array(request.out), request.offset, slices);
      return { kept: slices.reduce((n, slice) => n + slice.length, 0) };
    }
  }
}

/** Runs one link's step on the chunk, recording what it removed when asked. */
function step(
  record: boolean,
  apply: (uins: Uint32Array) => Uint32Array,
  applyRecording: (uins: Uint32Array) => Removal,
  reply: Partial<ChunkReply> = {},
): ChunkReply {
  if (!record) {
    kept = apply(kept);
    return { ...reply, kept: kept.length };
  }
  const removal = applyRecording(kept);
  kept = removal.kept;
  return { ...reply, kept: kept.length, removed: removal.removed.buffer as ArrayBuffer };
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
