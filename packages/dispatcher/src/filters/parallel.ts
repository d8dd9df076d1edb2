/**
 * The filter chain in parallel over hash-split chunks (DESIGN.md, "Filter
 * chain"; docs/architecture.md, "The filter chain").
 *
 * The list as loaded (unsorted, with repeats) is split into one chunk per
 * worker by a hash of the uin, so every copy of a uin lands in the same chunk
 * and dedupe stays exact per chunk. Each worker thread sorts its chunk and
 * runs the chain's in-memory prefix on it: the dedupe link, then the links
 * that only subtract sets (blacklist, no-resend); the main thread reads each
 * set once (a blacklist, an earlier audience from the ledger) and hands one
 * shared copy to every worker. The kept chunks are then merged back into one
 * ascending list, because the filtered list is written SORTED | UNIQUE and
 * units range over its indexes: the merge makes the output the very list
 * the single-thread path gives, byte for byte. The links that read a store
 * per user (follower check, targeting, frequency) run after, on the main
 * thread, over the merged list: they wait on I/O, not on a core, and their
 * stores (a shared counter, a local copy's file, an index) are one per
 * process, not one per worker.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HeraldError, radixSortUint32, type FilterReason } from '@herald/core';
import { countRemoved, runFilterChain, type ChainResult, type FilterContext, type RecipientFilter } from './filter';
import type { ChunkRequest } from './chunk-worker';

export interface ParallelChainOptions {
  /** Worker threads, one chunk each (>= 1). */
  workers: number;
}

/**
 * Runs `filters` over `list` (unsorted, repeats allowed) in `workers`
 * threads; the result equals sorting the list and `runFilterChain`. A chain
 * that does not start with the dedupe link runs on this thread.
 */
export async function runFilterChainParallel(list: Uint32Array, filters: readonly RecipientFilter[], context: FilterContext, options: ParallelChainOptions): Promise<ChainResult> {
  const first = filters[0];
  if (first?.dedupes !== true || (first.runsFor !== undefined && !(await first.runsFor(context)))) return runFilterChain(radixSortUint32(list), filters, context);
  let prefix = 1;
  while (prefix < filters.length && filters[prefix]!.subtracts !== undefined) prefix++;

  const chunks = splitByHash(list, Math.max(1, Math.floor(options.workers)));
  const pool = new ChunkPool(chunks.length);
  try {
    const removed: Partial<Record<FilterReason, number>> = {};
    let lengths = await pool.each((i) => ({ kind: 'load', buffer: chunks[i]!.buffer, length: chunks[i]!.length, dedupe: true }));
    countRemoved(removed, first.reason, list.length - sum(lengths));
    for (const filter of filters.slice(1, prefix)) {
      if (filter.runsFor !== undefined && !(await filter.runsFor(context))) continue;
      const before = sum(lengths);
      for await (const set of filter.subtracts!(context)) {
        const shared = toShared(set);
        lengths = await pool.each(() => ({ kind: 'subtract', buffer: shared, length: set.length }));
        if (sum(lengths) === 0) break;
      }
      countRemoved(removed, filter.reason, before - sum(lengths));
    }
    const merged = mergeSorted(chunks.map((chunk, i) => new Uint32Array(chunk.buffer, 0, lengths[i])));
    const rest = await runFilterChain(merged, filters.slice(prefix), context);
    for (const [reason, n] of Object.entries(rest.removed)) countRemoved(removed, reason as FilterReason, n);
    return { kept: rest.kept, removed };
  } finally {
    await pool.close();
  }
}

interface Chunk {
  buffer: SharedArrayBuffer;
  length: number;
}

/** Fibonacci hashing: spreads runs of neighbouring uins over every chunk. */
const HASH = 0x9e3779b1;

/** Splits `list` into `k` shared chunks by a hash of the uin: one counting pass, one scattering pass. */
export function splitByHash(list: Uint32Array, k: number): Chunk[] {
  if (k === 1) {
    const buffer = new SharedArrayBuffer(list.byteLength);
    new Uint32Array(buffer).set(list);
    return [{ buffer, length: list.length }];
  }
  const part = new Uint8Array(list.length);
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < list.length; i++) {
    const p = Math.floor(((Math.imul(list[i]!, HASH) >>> 0) * k) / 4294967296);
    part[i] = p;
    counts[p]!++;
  }
  const views = counts.map((n) => new Uint32Array(new SharedArrayBuffer(n * 4)));
  const fill = new Array<number>(k).fill(0);
  for (let i = 0; i < list.length; i++) {
    const p = part[i]!;
    views[p]![fill[p]!++] = list[i]!;
  }
  return views.map((view) => ({ buffer: view.buffer as SharedArrayBuffer, length: view.length }));
}

/** Merges ascending, pairwise disjoint arrays into one ascending array, pair by pair. */
export function mergeSorted(parts: Uint32Array[]): Uint32Array {
  if (parts.length === 0) return new Uint32Array(0);
  if (parts.length === 1) return parts[0]!.slice();
  let level = parts;
  while (level.length > 1) {
    const next: Uint32Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? mergeTwo(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

function mergeTwo(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  out.set(a.subarray(i), n);
  out.set(b.subarray(j), n + a.length - i);
  return out;
}

function toShared(set: Uint32Array): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(set.byteLength);
  new Uint32Array(buffer).set(set);
  return buffer;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** The built worker script: next to this file when it runs from dist/, the built one when ts-jest runs the sources. */
function workerScript(): string {
  const here = join(__dirname, 'chunk-worker.js');
  return existsSync(here) ? here : join(__dirname, '..', '..', 'dist', 'filters', 'chunk-worker.js');
}

/** One worker thread per chunk, one request at a time each. */
class ChunkPool {
  private readonly workers: Worker[];

  constructor(size: number) {
    const script = workerScript();
    this.workers = Array.from({ length: size }, () => new Worker(script));
  }

  /** Sends each worker its request; answers the kept length of every chunk. */
  each(requestOf: (i: number) => ChunkRequest): Promise<number[]> {
    return Promise.all(this.workers.map((worker, i) => ask(worker, requestOf(i))));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

function ask(worker: Worker, request: ChunkRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: { kept?: number; error?: string }) => {
      done();
      if (reply.error !== undefined) reject(new HeraldError('INTERNAL', `filter worker failed: ${reply.error}`));
      else resolve(reply.kept!);
    };
    const onError = (error: Error) => {
      done();
      reject(new HeraldError('INTERNAL', `filter worker failed: ${error.message}`, { cause: error }));
    };
    const onExit = (code: number) => {
      done();
      reject(new HeraldError('INTERNAL', `filter worker exited with code ${code}`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(request);
  });
}
