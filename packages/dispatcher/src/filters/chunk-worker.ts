/**
 * One worker of the parallel filter chain (filters/parallel.ts): holds one
 * hash-split chunk of a task's list in shared memory, sorts and dedupes it,
 * then subtracts each set it is handed (blacklists, earlier audiences),
 * compacting in place. Answers every message with the chunk's kept length.
 *
 *   { kind: 'load', buffer, length, dedupe }  sort the chunk (and drop repeats when `dedupe`)
 *   { kind: 'subtract', buffer, length }      remove the uins of a sorted, distinct set
 */
import { parentPort } from 'node:worker_threads';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core';

export type ChunkRequest = { kind: 'load'; buffer: SharedArrayBuffer; length: number; dedupe: boolean } | { kind: 'subtract'; buffer: SharedArrayBuffer; length: number };

let kept: Uint32Array = new Uint32Array(0);

function handle(request: ChunkRequest): number {
  if (request.kind === 'load') {
    const chunk = radixSortUint32(new Uint32Array(request.buffer, 0, request.length));
    kept = request.dedupe ? uniqueSorted(chunk) : chunk;
  } else {
    kept = subtractSorted(kept, new Uint32Array(request.buffer, 0, request.length));
  }
  return kept.length;
}

parentPort?.on('message', (request: ChunkRequest) => {
  try {
    parentPort!.postMessage({ kept: handle(request) });
  } catch (error) {
    parentPort!.postMessage({ error: String(error) });
  }
});
