/**
 * Event-time order for presence events. Login and logout events for one user
 * can reach the presence topic out of order (two connection servers, one
 * slower): a logout that happened before a login but arrives after it must
 * not hide the login. So each user's newest applied event time is
 * remembered, and an older event is stale.
 *
 * Memory is bounded by a reorder window: once events newer than a user's last
 * one by more than `windowMs` have been seen, the user is forgotten (the
 * oldest are pruned when the table grows past `maxTracked`). A user with no
 * entry takes any event, so an event delayed by more than the window behind a
 * newer event of the same user can still win: the window is the delay the
 * agent tolerates, not a guarantee beyond it.
 *
 * Equal times keep arrival order (the later event applies), and applying the
 * same event twice is harmless: at-least-once delivery needs no more.
 */
export interface PresenceOrderOptions {
  /** How late an event may arrive behind a newer event of the same user and still be recognised as stale. */
  windowMs: number;
  /** Users remembered before pruning those outside the window. */
  maxTracked: number;
}

export class PresenceOrder {
  private readonly lastAt = new Map<number, number>();
  private newestAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: PresenceOrderOptions) {
    if (!(options.windowMs >= 0)) throw new RangeError(`windowMs must be >= 0 (got ${options.windowMs})`);
    if (!(options.maxTracked >= 1)) throw new RangeError(`maxTracked must be >= 1 (got ${options.maxTracked})`);
  }

  /** True when the event at `at` (epoch ms) for `uin` is not older than the newest one applied; records it. */
  admit(uin: number, at: number): boolean {
    const last = this.lastAt.get(uin);
    if (last !== undefined && at < last) return false;
    this.lastAt.set(uin, at);
    if (at > this.newestAt) this.newestAt = at;
    if (this.lastAt.size > this.options.maxTracked) this.prune();
    return true;
  }

  /** Users currently remembered. */
  get tracked(): number {
    return this.lastAt.size;
  }

  private prune(): void {
    const horizon = this.newestAt - this.options.windowMs;
    for (const [uin, at] of this.lastAt) if (at < horizon) this.lastAt.delete(uin);
  }
}
