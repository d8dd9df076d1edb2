/**
 * The filter chain in parallel over ranges of values (docs/architecture.md,
 * "The filter chain").
 *
 * The list as loaded (unsorted, with repeats) lies in shared memory and is
 * filtered where it lies: one worker cuts it in place at pivots (quantiles of
 * a sample) into one range of values per worker (value-ranges.ts), each
 * worker takes its range (a range of the list holding a range of values, so
 * every copy of a uin is in one range and dedupe stays exact), sorts it in
 * place and runs the chain's in-memory prefix on it: the dedupe link, then
 * the links that only subtract sets (blacklist, no-resend); the main thread
 * reads each set once (a blacklist, an earlier audience from the ledger) and
 * hands one shared copy to every worker. The ranges are in value order, so the kept ranges laid end
 * to end are the sorted filtered list: the very list the single-thread path
 * gives, byte for byte, with no merge. The filtered list is written SORTED |
 * UNIQUE and units range over its indexes.
 * Memory: the list's buffer, and a scratch of at most 16 MiB per worker for
 * the radix sort of one piece at a time; nothing else that grows with the
 * list.
 * With `record`, each worker hands back what each of its links removed (a
 * transferred buffer of its own), and a link's runs from every range are
 * merged into its removed set, the one a single thread records: so the
 * removed-sets file is complete. The links that read a store
 * per user (follower check, targeting, frequency) run after, on the main
 * thread, over the filtered list: they wait on I/O, not on a core, and their
 * stores (a shared counter, a local copy's file, an index) are one per
 * process, not one per worker.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HeraldError } from '@herald/core';
import type { FilterReason } from '@herald/core/task';
import {
  countRemoved,
  runFilterChain,
  type ChainOptions,
  type ChainResult,
  type FilterContext,
  type RecipientFilter,
} from './filter';
import { mergeSorted } from './merge-sorted';
import type { ChunkReply, ChunkRequest } from './chunk-worker';
import { pivotsOf, sortListInPlace } from './value-ranges';

export interface ParallelChainOptions {
  /** Worker threads, one range of values each (>= 1). */
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
    return runFilterChain(sortListInPlace(list), filters, context, options);
  let prefix = 1;
  while (prefix < filters.length && filters[prefix]!.subtracts !== undefined) prefix++;

  const parts = Math.max(1, Math.floor(options.workers));
  const removed: Partial<Record<FilterReason, number>> = {};
  const pool = new ChunkPool(parts);
  let prefixDone: { filtered: Uint32Array; links: RecordedRuns[] };
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
    // The ranges are laid end to end: the workers (and their scratch) end before the links still to run.
    await pool.close();
  }
  const rest = await runFilterChain(prefixDone.filtered, filters.slice(prefix), context, options);
  for (const [reason, n] of Object.entries(rest.removed)) countRemoved(removed, reason as FilterReason, n);
  if (rest.removedSets === undefined) return { kept: rest.kept, removed };
  // Each uin is in one range, so a link's runs are disjoint: merged, they are what one thread would have recorded.
  const inWorkers = prefixDone.links.map((link) => ({ reason: link.reason, uins: mergeSorted(link.runs) }));
  return { kept: rest.kept, removed, removedSets: [...inWorkers, ...rest.removedSets], complete: true };
}

/** A link's removals as the workers recorded them: sorted runs, one a range (and a set), pairwise disjoint. */
interface RecordedRuns {
  reason: FilterReason;
  runs: Uint32Array[];
}

/**
 * The in-memory prefix of the chain (dedupe, then the links that subtract
 * sets) in the pool's workers, counting into `removed`; answers the filtered
 * list (at the front of the list's buffer) and, with `record`, each link's
 * removed runs.
 */
async function runPrefixInWorkers(
  pool: ChunkPool,
  list: Uint32Array,
  prefix: readonly RecipientFilter[],
  context: FilterContext,
  removed: Partial<Record<FilterReason, number>>,
  record: boolean,
): Promise<{ filtered: Uint32Array; links: RecordedRuns[] }> {
  const links: RecordedRuns[] = [];
  const shared = toShared(list);
  const pivots = pivotsOf(list, pool.size);
  const bounds = (await pool.first({ kind: 'split', list: shared, length: list.length, pivots })).bounds!;
  const starts = bounds.slice(0, -1);
  const sorted = await pool.each((w) => ({
    kind: 'sort',
    list: shared,
    start: bounds[w]!,
    end: bounds[w + 1]!,
    record,
  }));
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
  const ranges = starts.map((start, w) => ({ start, length: lengths[w]! }));
  const compacted = await pool.first({ kind: 'compact', list: shared, ranges });
  return { filtered: new Uint32Array(shared, 0, compacted.kept), links };
}

/** The runs a step's replies carry (with `record`), one a range. */
function removedRuns(replies: readonly ChunkReply[]): Uint32Array[] {
  return replies.flatMap((reply) => (reply.removed === undefined ? [] : [new Uint32Array(reply.removed)]));
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

/** One worker thread per range of values, one request at a time each. */
class ChunkPool {
  private readonly workers: Worker[];

  constructor(readonly size: number) {
    const script = workerScript();
    this.workers = Array.from({ length: size }, () => new Worker(script));
  }

  /** Sends the first worker a request that one thread does; answers its reply. */
  first(request: ChunkRequest): Promise<ChunkReply> {
    return ask(this.workers[0]!, request);
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
