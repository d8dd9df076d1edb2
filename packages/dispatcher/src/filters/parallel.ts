/**
 * The filter chain in parallel over hash-split chunks (docs/architecture.md,
 * "The filter chain").
 *
 * The list as loaded (unsorted, with repeats) is shared with one worker per
 * chunk, and each worker takes out its chunk: the uins whose hash is its
 * part, so every copy of a uin lands in the same chunk and dedupe stays exact
 * per chunk (chunks.ts). Each worker sorts its chunk and runs the chain's
 * in-memory prefix on it: the dedupe link, then the links that only subtract
 * sets (blacklist, no-resend); the main thread reads each set once (a
 * blacklist, an earlier audience from the ledger) and hands one shared copy
 * to every worker. The kept chunks are then merged back into one ascending
 * list, because the filtered list is written SORTED | UNIQUE and units range
 * over its indexes: the merge makes the output the very list the
 * single-thread path gives, byte for byte. The merge is parallel too: the
 * value space is cut at quantiles of one chunk (a hash sample of the whole),
 * and each worker merges one range of values from every chunk into its place
 * in the shared output, so no pass over the whole list runs on one thread.
 * Memory: the list's buffer, and the chunks (copies of it, between them as
 * long as the list); each worker's radix sort has its room in the list's
 * buffer, free once every chunk is taken, and the workers end (their chunks
 * with them) before the links after the merge run.
 * With `record`, each worker hands back what each of its links removed (a
 * transferred buffer of its own), and a link's runs from every chunk are
 * merged into its removed set, the one a single thread records: so the
 * removed-sets file is complete. The links that read a store
 * per user (follower check, targeting, frequency) run after, on the main
 * thread, over the merged list: they wait on I/O, not on a core, and their
 * stores (a shared counter, a local copy's file, an index) are one per
 * process, not one per worker.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HeraldError } from '@herald/core';
import { radixSortUint32 } from '@herald/core/uins';
import type { FilterReason } from '@herald/core/task';
import {
  countRemoved,
  runFilterChain,
  type ChainOptions,
  type ChainResult,
  type FilterContext,
  type RecipientFilter,
} from './filter';
import { lowerBound, mergeSorted } from './chunks';
import type { ChunkReply, ChunkRequest, Slice } from './chunk-worker';

export interface ParallelChainOptions {
  /** Worker threads, one chunk each (>= 1). */
  workers: number;
}

/**
 * Runs `filters` over `list` (unsorted, repeats allowed) in `workers`
 * threads; the result equals sorting the list and `runFilterChain`. A chain
 * that does not start with the dedupe link runs on this thread. Like
 * `runFilterChain`, it works in the list's memory: a list on a
 * SharedArrayBuffer (loadRecipientList's `shared`) is used as it is and
 * overwritten; any other is copied to one first.
 */
export async function runFilterChainParallel(
  list: Uint32Array,
  filters: readonly RecipientFilter[],
  context: FilterContext,
  options: ParallelChainOptions & ChainOptions,
): Promise<ChainResult> {
  const first = filters[0];
  if (first?.dedupes !== true || (first.runsFor !== undefined && !(await first.runsFor(context))))
    return runFilterChain(radixSortUint32(list), filters, context, options);
  let prefix = 1;
  while (prefix < filters.length && filters[prefix]!.subtracts !== undefined) prefix++;

  const parts = Math.max(1, Math.floor(options.workers));
  const removed: Partial<Record<FilterReason, number>> = {};
  const pool = new ChunkPool(parts);
  let prefixDone: { merged: Uint32Array; links: RecordedRuns[] };
  try {
    prefixDone = await runPrefixInWorkers(
      pool,
      list,
      filters.slice(0, prefix),
      context,
      removed,
      options.record === true,
    );
  } finally {
    // The chunks are merged: the workers end here, so their copies are not kept through the links still to run.
    await pool.close();
  }
  const rest = await runFilterChain(prefixDone.merged, filters.slice(prefix), context, options);
  for (const [reason, n] of Object.entries(rest.removed)) countRemoved(removed, reason as FilterReason, n);
  if (rest.removedSets === undefined) return { kept: rest.kept, removed };
  // Each uin is in one chunk, so a link's runs are disjoint: merged, they are what one thread would have recorded.
  const inWorkers = prefixDone.links.map((link) => ({ reason: link.reason, uins: mergeSorted(link.runs) }));
  return { kept: rest.kept, removed, removedSets: [...inWorkers, ...rest.removedSets], complete: true };
}

/** A link's removals as the workers recorded them: sorted runs, one a chunk (and a set), pairwise disjoint. */
interface RecordedRuns {
  reason: FilterReason;
  runs: Uint32Array[];
}

/**
 * The in-memory prefix of the chain (dedupe, then the links that subtract
 * sets) in the pool's workers, counting into `removed`; answers the merged
 * list and, with `record`, each link's removed runs.
 */
async function runPrefixInWorkers(
  pool: ChunkPool,
  list: Uint32Array,
  prefix: readonly RecipientFilter[],
  context: FilterContext,
  removed: Partial<Record<FilterReason, number>>,
  record: boolean,
): Promise<{ merged: Uint32Array; links: RecordedRuns[] }> {
  const parts = pool.size;
  const links: RecordedRuns[] = [];
  const shared = toShared(list);
  const taken = (await pool.each((part) => ({ kind: 'take', list: shared, length: list.length, part, parts }))).map(
    (reply) => reply.kept,
  );
  // Every chunk is a copy now (or, with one worker, the list itself), so the list's buffer is free until the
  // merge: each worker's radix sort has its room there, a range as long as its chunk.
  const starts = taken.map((_, part) => sum(taken.slice(0, part)));
  const sorted = await pool.each((part) => ({
    kind: 'sort',
    record,
    ...(parts === 1 ? {} : { scratch: { buffer: shared, start: starts[part]!, end: starts[part]! + taken[part]! } }),
  }));
  const chunks = sorted.map((reply) => reply.chunk!);
  let lengths = sorted.map((reply) => reply.kept);
  countRemoved(removed, prefix[0]!.reason, list.length - sum(lengths));
  if (record) links.push({ reason: prefix[0]!.reason, runs: removedRuns(sorted) });
  for (const filter of prefix.slice(1)) {
    if (filter.runsFor !== undefined && !(await filter.runsFor(context))) continue;
    const before = sum(lengths);
    const link: RecordedRuns = { reason: filter.reason, runs: [] };
    for await (const values of filter.subtracts!(context)) {
      const set = toShared(values);
      const replies = await pool.each(() => ({ kind: 'subtract', set, length: values.length, record }));
      lengths = replies.map((reply) => reply.kept);
      link.runs.push(...removedRuns(replies));
      if (sum(lengths) === 0) break;
    }
    countRemoved(removed, filter.reason, before - sum(lengths));
    if (record) links.push(link);
  }
  const kept = chunks.map((buffer, i) => new Uint32Array(buffer, 0, lengths[i]));
  // One chunk is the list itself, sorted in place; more are copies, merged back into the list's buffer.
  const merged = parts === 1 ? kept[0]! : await mergeInWorkers(pool, kept, shared);
  return { merged, links };
}

/** The runs a step's replies carry (with `record`), one a chunk. */
function removedRuns(replies: readonly ChunkReply[]): Uint32Array[] {
  return replies.flatMap((reply) => (reply.removed === undefined ? [] : [new Uint32Array(reply.removed)]));
}

/**
 * Merges the sorted chunks into one shared array, each worker one range of
 * values: the ranges are cut at quantiles of the largest chunk, and a
 * worker's place in the output is the count of smaller values in every chunk.
 */
async function mergeInWorkers(pool: ChunkPool, chunks: Uint32Array[], out: SharedArrayBuffer): Promise<Uint32Array> {
  const total = sum(chunks.map((chunk) => chunk.length));
  const sample = chunks.reduce((a, b) => (b.length > a.length ? b : a));
  const parts = pool.size;
  // Range r holds the values in [cut(r), cut(r + 1)): cut(0) = 0, cut(parts) = past every uin.
  const cut = (r: number) =>
    r === 0 ? 0 : r === parts || sample.length === 0 ? 2 ** 32 : sample[Math.floor((sample.length * r) / parts)]!;
  const boundsAt = (r: number) => chunks.map((chunk) => lowerBound(chunk, cut(r)));
  const bounds = Array.from({ length: parts + 1 }, (_, r) => boundsAt(r));
  await pool.each((r) => ({
    kind: 'merge',
    slices: chunks.map((chunk, c): Slice => ({
      buffer: chunk.buffer as SharedArrayBuffer,
      start: bounds[r]![c]!,
      end: bounds[r + 1]![c]!,
    })),
    out,
    offset: sum(bounds[r]!),
  }));
  return new Uint32Array(out, 0, total);
}

function toShared(values: Uint32Array): SharedArrayBuffer {
  if (values.buffer instanceof SharedArrayBuffer && values.byteOffset === 0) return values.buffer;
  const buffer = new SharedArrayBuffer(values.byteLength);
  new Uint32Array(buffer).set(values);
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

  constructor(readonly size: number) {
    const script = workerScript();
    this.workers = Array.from({ length: size }, () => new Worker(script));
  }

  /** Sends each worker its request; answers every worker's reply, in order. */
  each(requestOf: (i: number) => ChunkRequest): Promise<ChunkReply[]> {
    return Promise.all(this.workers.map((worker, i) => ask(worker, requestOf(i))));
  }

  /** Ends every worker; a second call does nothing. */
  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.terminate()));
  }
}

function ask(worker: Worker, request: ChunkRequest): Promise<ChunkReply> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: ChunkReply) => {
      done();
      if (reply.error !== undefined) reject(new HeraldError('INTERNAL', `filter worker failed: ${reply.error}`));
      else resolve(reply);
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
