import { TokenBucket } from '@herald/core/pacing';
import type { Clock } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { LRUCache } from 'lru-cache';

/**
 * Pacing (docs/scheduling.md, "Pacing": a sender sends at its task's speed): with it,
 * the executor takes each batch's recipients from its task's token bucket
 * (core pacing/token-bucket.ts) before delivering the batch, and waits while
 * the bucket is short.
 */
export interface PacingOptions {
  /**
   * Recipients per second this executor sends the task at; undefined or 0:
   * unpaced. Production and embedded pass this executor's share of the
   * task's own speed (speed-share.ts; docs/scheduling.md "Pacing").
   */
  speedOf(task: Task): number | undefined | Promise<number | undefined>;
  /** Seconds of speed a task may send at once: the bucket's burst (at least one recipient). Default 1. */
  burstSeconds?: number;
  /** Resolves after `ms`. Default: a timer. Tests pass one their clock drives. */
  sleep?: (ms: number) => Promise<void>;
}

/** Other work a paced wait lets through: the real-time batches that arrive meanwhile. */
export interface Meanwhile {
  /** `ready` resolves when there is some; `cancel` drops the watch when the wait ended first. */
  watch(): { ready: Promise<void>; cancel(): void };
  /** Does it (the pacing wait then goes on, for what time is left). */
  run(): Promise<void>;
}

/** Tasks whose bucket is kept; past it the oldest is forgotten (and starts full when seen again). */
const BUCKET_MEMORY = 65_536;

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class Pacer {
  private readonly buckets = new LRUCache<number, TokenBucket>({ max: BUCKET_MEMORY });
  private readonly sleep: (ms: number) => Promise<void>;
  /** Set by the first reaction to `stopped`, so every wait sees it after its next await. */
  private isStopped = false;

  constructor(
    private readonly options: PacingOptions,
    private readonly clock: Clock,
    /** Resolves when the executor stops: a wait in progress ends, unadmitted. */
    private readonly stopped: Promise<void>,
    /** Told of every batch a bucket admitted: `count` recipients of a paced task (the executor's metric). */
    private readonly paced: (count: number) => void = () => undefined,
  ) {
    this.sleep = options.sleep ?? timerSleep;
    void stopped.then(() => (this.isStopped = true));
  }

  /**
   * Resolves true once `count` recipients of the task may be sent (at once
   * for an unpaced task), false when the executor stopped while waiting.
   * While it waits, `meanwhile` work runs whenever some is ready.
   */
  async admit(task: Task, count: number, meanwhile?: Meanwhile): Promise<boolean> {
    const bucket = this.bucketOf(task, await this.options.speedOf(task));
    if (bucket === undefined) return true;
    let sleeping: Promise<'slept'> | undefined;
    let watch: ReturnType<Meanwhile['watch']> | undefined;
    let other: Promise<'other'> | undefined;
    try {
      for (let wait = bucket.take(count, this.clock.now()); wait > 0; wait = bucket.take(count, this.clock.now())) {
        sleeping ??= this.sleep(wait).then(() => 'slept' as const);
        if (meanwhile !== undefined && watch === undefined) {
          watch = meanwhile.watch();
          other = watch.ready.then(() => 'other' as const);
        }
        const woken = await Promise.race([
          sleeping,
          this.stopped.then(() => 'stopped' as const),
          ...(other ? [other] : []),
        ]);
        // Whatever woke it: once stopped (which also wakes a watch, the prefetch being closed), stop.
        if (woken === 'stopped' || this.isStopped) return false;
        if (woken === 'slept') {
          sleeping = undefined;
          continue;
        }
        watch = undefined;
        await meanwhile!.run();
        if (this.isStopped) return false;
      }
      this.paced(count);
      return true;
    } finally {
      watch?.cancel();
    }
  }

  private bucketOf(task: Task, speed: number | undefined): TokenBucket | undefined {
    if (speed === undefined || speed === 0) {
      this.buckets.delete(task.id);
      return undefined;
    }
    const held = this.buckets.get(task.id);
    if (held !== undefined && held.ratePerSecond === speed) return held;
    const bucket = new TokenBucket(
      { ratePerSecond: speed, burst: Math.max(1, speed * (this.options.burstSeconds ?? 1)) },
      this.clock.now(),
    );
    this.buckets.set(task.id, bucket);
    return bucket;
  }
}
