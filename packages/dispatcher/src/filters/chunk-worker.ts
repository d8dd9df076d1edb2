/**
 * One worker of the parallel filter chain (filters/parallel.ts). It takes its
 * chunk (the uins whose hash is its part) out of the task's list in shared
 * memory, sorts and dedupes it, subtracts each set it is handed (blacklists,
 * earlier audiences), compacting in place, and at the end merges its range of
 * values from every chunk into the shared output.
 *
 *   load      { list, part, parts }          -> { kept, chunk }  its chunk, sorted and deduped (with one
 *                                                                 worker, the list itself, in place)
 *   subtract  { set, length }                -> { kept }         minus a sorted, distinct set
 *   merge     { slices, out, offset }        -> { kept }         the slices merged into out at offset
 *                                                                 (out is the list's own buffer: the
 *                                                                 chunks are copies, so it is free)
 */
import { parentPort } from 'node:worker_threads';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import { mergeInto, takePart } from './chunks';

export interface Slice {
  buffer: SharedArrayBuffer;
  start: number;
  end: number;
}

export type ChunkRequest =
  | { kind: 'load'; list: SharedArrayBuffer; length: number; part: number; parts: number }
  | { kind: 'subtract'; set: SharedArrayBuffer; length: number }
  | { kind: 'merge'; slices: Slice[]; out: SharedArrayBuffer; offset: number };

export interface ChunkReply {
  kept: number;
  chunk?: SharedArrayBuffer;
  error?: string;
}

let kept: Uint32Array = new Uint32Array(0);

function handle(request: ChunkRequest): ChunkReply {
  switch (request.kind) {
    case 'load': {
      // One worker: the whole list is its chunk, sorted where it lies.
      const list = new Uint32Array(request.list, 0, request.length);
      kept = uniqueSorted(radixSortUint32(request.parts === 1 ? list : takePart(list, request.part, request.parts)));
      return { kept: kept.length, chunk: kept.buffer as SharedArrayBuffer };
    }
    case 'subtract':
      kept = subtractSorted(kept, new Uint32Array(request.set, 0, request.length));
      return { kept: kept.length };
    case 'merge': {
      const slices = request.slices.map(({ buffer, start, end }) => new Uint32Array(buffer, start * 4, end - start));
      mergeInto(new Uint32Array(request.out), request.offset, slices);
      return { kept: slices.reduce((n, slice) => n + slice.length, 0) };
    }
  }
}

parentPort?.on('message', (request: ChunkRequest) => {
  let reply: ChunkReply;
  try {
    reply = handle(request);
  } catch (error) {
    reply = { kept: 0, error: String(error) };
  }
  parentPort!.postMessage(reply);
});
