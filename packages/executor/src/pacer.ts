import { TokenBucket, type Clock, type Task } from '@herald/core';

/**
 * Pacing (DESIGN "Executor": a sender sends at its task's speed): with it,
 * the executor takes each batch's recipients from its task's token bucket
 * (core pacing/token-bucket.ts) before delivering the batch, and waits while
 * the bucket is short.
 */
export interface PacingOptions {
  /**
   * Recipients per second this executor sends the task at; undefined or 0:
   * unpaced. Nothing in Herald sets a task's speed yet (the task record has
   * none; the load-aware dispatch plan computes one per task): the caller
   * that has one passes it here.
   */
  speedOf(task: Task): number | undefined;
  /** Seconds of speed a task may send at once: the bucket's burst (at least one recipient). Default 1. */
  burstSeconds?: number;
  /** Resolves after `ms`. Default: a timer. Tests pass one their clock drives. */
  sleep?: (ms: number) => Promise<void>;
}

/** Tasks whose bucket is kept; past it the oldest is forgotten (and starts full when seen again). */
const BUCKET_MEMORY = 65_536;

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class Pacer {
  private readonly buckets = new Map<number, TokenBucket>();
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly options: PacingOptions,
    private readonly clock: Clock,
    /** Resolves when the executor stops: a wait in progress ends, unadmitted. */
    private readonly stopped: Promise<void>,
  ) {
    this.sleep = options.sleep ?? timerSleep;
  }

  /**
   * Resolves true once `count` recipients of the task may be sent (at once
   * for an unpaced task), false when the executor stopped while waiting.
   */
  async admit(task: Task, count: number): Promise<boolean> {
    const bucket = this.bucketOf(task);
    if (bucket === undefined) return true;
    for (let wait = bucket.take(count, this.clock.now()); wait > 0; wait = bucket.take(count, this.clock.now())) {
      const woken = await Promise.race([this.sleep(wait).then(() => 'slept' as const), this.stopped.then(() => 'stopped' as const)]);
      if (woken === 'stopped') return false;
    }
    return true;
  }

  private bucketOf(task: Task): TokenBucket | undefined {
    const speed = this.options.speedOf(task);
    if (speed === undefined || speed === 0) {
      this.buckets.delete(task.id);
      return undefined;
    }
    const held = this.buckets.get(task.id);
    if (held !== undefined && held.ratePerSecond === speed) return held;
    const bucket = new TokenBucket({ ratePerSecond: speed, burst: Math.max(1, speed * (this.options.burstSeconds ?? 1)) }, this.clock.now());
    this.buckets.delete(task.id);
    this.buckets.set(task.id, bucket);
    if (this.buckets.size > BUCKET_MEMORY) this.buckets.delete(this.buckets.keys().next().value!);
    return bucket;
  }
}
