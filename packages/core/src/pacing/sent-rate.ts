/**
 * The rate at which a sender actually sent, in recipients per second, over
 * the last `windowMs` (ChannelPacing: a cut starts from what was sent, not
 * from a rate the sender never reached). Pure: times are passed in.
 */
export class SentRate {
  /** Sends in the window, oldest first: [time (ms), recipients]. */
  private readonly sends: [number, number][] = [];
  private head = 0;
  private total = 0;

  constructor(private readonly windowMs: number) {}

  record(recipients: number, now: number): void {
    this.sends.push([now, recipients]);
    this.total += recipients;
    this.forget(now);
  }

  /**
   * Recipients per second sent over the window, or since `since` when that
   * is later (a hold's end: time held is not time the sender could send);
   * undefined when less than `minSpanMs` of it is behind `now`, too short to
   * tell a rate from a burst.
   */
  rate(now: number, since: number, minSpanMs: number): number | undefined {
    this.forget(now);
    const from = Math.max(now - this.windowMs, since);
    const span = now - from;
    if (span < minSpanMs) return undefined;
    let recipients = this.total;
    for (let i = this.head; i < this.sends.length && this.sends[i]![0] < from; i++) recipients -= this.sends[i]![1];
    return (recipients * 1000) / span;
  }

  private forget(now: number): void {
    while (this.head < this.sends.length && this.sends[this.head]![0] <= now - this.windowMs) {
      this.total -= this.sends[this.head]![1];
      this.head++;
    }
    // Drop the forgotten prefix now and then, not at every send.
    if (this.head > 1024 && this.head * 2 > this.sends.length) {
      this.sends.splice(0, this.head);
      this.head = 0;
    }
  }
}
