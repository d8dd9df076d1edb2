/**
 * At most `size` messages in flight across every batch a gateway sends at
 * once (a process's executors share one gateway): a push service caps a
 * connection's concurrent streams, and a few large batches at a time must
 * not each open `size` of them. Waiters are served in arrival order.
 */
export class MessageSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  async run<T>(send: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await send();
    } finally {
      // The slot passes straight to the next waiter, or back to the pool.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}
