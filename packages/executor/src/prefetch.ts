import { ErrorCodes, HeraldError, ValidationError } from '@herald/core';

/**
 * The executor's prefetch: messages pulled from its inboxes ahead of the
 * worker, waiting in two lanes. The worker always takes the real-time lane
 * first, so a real-time task's batches overtake the normal batches waiting
 * here. (Not those still queued in ZeroMQ, which stay in arrival order: see
 * docs/scheduling.md, "Latency of a preemption".)
 *
 * Bounded per source: each inbox's reader holds at most `capacity` messages
 * the worker has not taken yet, and pulls the next only when it holds fewer.
 * A full prefetch leaves the rest in the socket, so ZeroMQ's high-water mark
 * pushes back on the senders as before. The bound is per source so that a
 * full normal inbox never keeps a real-time inbox from being read.
 *
 * One key's (a task's) messages are taken in the order they were put: a
 * message joins the lane its key already waits in, whatever lane it asked
 * for, so a task whose priority was not known for one message (store read
 * failed, sent to the normal lane) is not reordered when it is known for the
 * next.
 */
export type Lane = 'realtime' | 'normal';

/** One inbox's share of the prefetch. */
export interface PrefetchSource {
  /** Messages this source put that the worker has not taken yet. */
  readonly held: number;
  /** Resolves true as soon as this source holds fewer than its capacity (it may pull one more), false once the prefetch closed. */
  room(): Promise<boolean>;
}

class Source implements PrefetchSource {
  held = 0;
  private wake: ((open: boolean) => void) | undefined;

  constructor(
    readonly capacity: number,
    private readonly isClosed: () => boolean,
  ) {}

  room(): Promise<boolean> {
    if (this.isClosed()) return Promise.resolve(false);
    if (this.held < this.capacity) return Promise.resolve(true);
    return new Promise((resolve) => (this.wake = resolve));
  }

  release(): void {
    this.held--;
    this.signal(true);
  }

  signal(open: boolean): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.(open);
  }
}

interface Entry<T> {
  item: T;
  key: number;
  source: Source;
}

export class Prefetch<T> {
  private readonly lanes: Record<Lane, Entry<T>[]> = { realtime: [], normal: [] };
  /** Per key with messages waiting: its lane and how many. */
  private readonly keys = new Map<number, { lane: Lane; count: number }>();
  private readonly sources: Source[] = [];
  private taker: ((item: T | undefined) => void) | undefined;
  /** Waiting for an item in the real-time lane (watchRealtime). */
  private readonly realtimeWatchers = new Set<() => void>();
  private closed = false;

  /** A new source that may hold up to `capacity` untaken messages. */
  source(capacity: number): PrefetchSource {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new ValidationError(`prefetch capacity must be a positive integer, got ${String(capacity)}`, { capacity });
    const source = new Source(capacity, () => this.closed);
    this.sources.push(source);
    return source;
  }

  /**
   * Queues `item` in `lane` (or the lane its key already waits in). The source
   * must have had room (see `room`): putting beyond its capacity is a bug in
   * the reader and throws. Returns false, dropping the item, once closed.
   */
  put(from: PrefetchSource, lane: Lane, key: number, item: T): boolean {
    if (this.closed) return false;
    const source = from as Source;
    if (!this.sources.includes(source))
      throw new HeraldError(ErrorCodes.INTERNAL, 'prefetch: put from a source of another prefetch');
    if (source.held >= source.capacity)
      throw new HeraldError(ErrorCodes.INTERNAL, 'prefetch: put beyond the source capacity (wait for room first)', {
        details: { held: source.held },
      });
    const waiting = this.keys.get(key);
    const into = waiting?.lane ?? lane;
    if (waiting === undefined) this.keys.set(key, { lane: into, count: 1 });
    else waiting.count++;
    source.held++;
    if (this.taker !== undefined) {
      const taker = this.taker;
      this.taker = undefined;
      taker(this.release({ item, key, source }));
    } else {
      this.lanes[into].push({ item, key, source });
      if (into === 'realtime') this.wakeRealtimeWatchers();
    }
    return true;
  }

  /** The next item, real-time lane first; waits while both are empty; undefined once closed. One taker at a time. */
  take(): Promise<T | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const entry = this.lanes.realtime.shift() ?? this.lanes.normal.shift();
    if (entry !== undefined) return Promise.resolve(this.release(entry));
    if (this.taker !== undefined)
      return Promise.reject(new HeraldError(ErrorCodes.INTERNAL, 'prefetch: take() already has a taker'));
    return new Promise((resolve) => (this.taker = resolve));
  }

  /**
   * Resolves once an item waits in the real-time lane (at once if one does)
   * or the prefetch closed: a worker waiting to send a normal batch at its
   * task's speed (pacer.ts) takes real-time items meanwhile, so they never
   * wait behind a paced task.
   */
  watchRealtime(): { ready: Promise<void>; cancel(): void } {
    if (this.closed || this.lanes.realtime.length > 0) return { ready: Promise.resolve(), cancel() {} };
    let wake!: () => void;
    const ready = new Promise<void>((resolve) => (wake = resolve));
    this.realtimeWatchers.add(wake);
    // Cancelled (the wait ended first), the watcher is dropped with its promise: none piles up over a long paced run.
    return { ready, cancel: () => this.realtimeWatchers.delete(wake) };
  }

  /** The next real-time item, or undefined when none waits (or closed). */
  takeRealtime(): T | undefined {
    const entry = this.closed ? undefined : this.lanes.realtime.shift();
    return entry === undefined ? undefined : this.release(entry);
  }

  /** Items waiting in either lane. */
  get size(): number {
    return this.lanes.realtime.length + this.lanes.normal.length;
  }

  /**
   * Abandons what waits (never handed to the worker, so never reported: it is
   * sent again from the unit's checkpoint) and ends every wait: `take` gives
   * undefined, `room` false. Returns how many items were abandoned.
   */
  close(): number {
    if (this.closed) return 0;
    this.closed = true;
    const abandoned = this.size;
    this.lanes.realtime.length = 0;
    this.lanes.normal.length = 0;
    this.keys.clear();
    this.taker?.(undefined);
    this.taker = undefined;
    this.wakeRealtimeWatchers();
    for (const source of this.sources) source.signal(false);
    return abandoned;
  }

  private wakeRealtimeWatchers(): void {
    for (const wake of this.realtimeWatchers) wake();
    this.realtimeWatchers.clear();
  }

  private release(entry: Entry<T>): T {
    const waiting = this.keys.get(entry.key)!;
    if (--waiting.count === 0) this.keys.delete(entry.key);
    entry.source.release();
    return entry.item;
  }
}
