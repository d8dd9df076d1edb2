/**
 * What one process has in hand for its channel (PacedDeliveryGateway): the
 * recipients of the batches inside `deliver` now, waiting on the pacing or
 * in flight, and the most at once since the last `take`, its demand as the
 * budget's split by demand tells it (docs/delivery.md, "One budget per
 * channel"). Tells its watchers when the last batch in hand leaves.
 */
export class ChannelDemand {
  private waiting = 0;
  private peak = 0;
  private readonly idleWatchers = new Set<() => void>();

  /** A batch of `count` recipients came in. */
  enter(count: number): void {
    this.waiting += count;
    this.peak = Math.max(this.peak, this.waiting);
  }

  /** A batch of `count` recipients left (accepted, refused or given back); at none left, the idle watchers hear it. */
  leave(count: number): void {
    this.waiting -= count;
    if (this.waiting === 0) for (const watcher of this.idleWatchers) watcher();
  }

  /** Recipients in hand now. */
  get inHand(): number {
    return this.waiting;
  }

  /** The most recipients in hand at once since the last call; the next count starts from those in hand now. */
  take(): number {
    const demand = this.peak;
    this.peak = this.waiting;
    return demand;
  }

  /** Calls `listener` each time the last batch in hand leaves; returns the unsubscribe. */
  onIdle(listener: () => void): () => void {
    this.idleWatchers.add(listener);
    return () => this.idleWatchers.delete(listener);
  }
}
