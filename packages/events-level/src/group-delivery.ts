import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumedEvent, Logger } from '@herald/core/ports';

export type Handler = (events: ConsumedEvent[]) => Promise<void>;

/** Where a group reads from and commits to: the log, seen by one (topic, group). */
export interface GroupSource {
  /** Up to `limit` events from `position` on, in log order, with their positions. */
  read(position: number, limit: number): Promise<{ events: ConsumedEvent[]; next: number }>;
  /** Records that every event before `next` was handled. */
  commit(next: number): Promise<void>;
}

interface Member {
  handler: Handler;
  retryDelayMs: number;
  /** The batch this member is handling, if any. */
  busy?: Promise<unknown>;
}

/**
 * Delivery to one consumer group of one topic, in this process: one batch in
 * flight at a time (so per-key order holds), handed to the group's members in
 * turn. The cursor moves, and is committed, only after a handler resolved; a
 * handler that throws gets the same batch again after its `retryDelayMs`.
 *
 * No polling: when the log has nothing new, the loop waits for `notify()`
 * (called after every append to the topic) and then reads from its cursor,
 * which also catches up on whatever was appended meanwhile. A version counter
 * closes the gap between an empty read and starting to wait.
 */
export class GroupDelivery {
  private readonly members: Member[] = [];
  private turn = 0;
  private version = 0;
  private stopping = false;
  private readonly stop = new AbortController();
  private wake?: () => void;
  private loop?: Promise<void>;

  constructor(
    private readonly source: GroupSource,
    private position: number,
    private readonly batchSize: number,
    private readonly logger: Logger,
    private readonly label: { topic: string; group: string },
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  /** New events were appended to the topic. */
  readonly notify = (): void => {
    this.version++;
    this.wake?.();
  };

  add(member: Member): void {
    this.members.push(member);
    this.loop ??= this.run();
  }

  /**
   * Removes a member once its batch in flight (if any) is done. Returns true
   * when it was the last one: the delivery has then stopped for good.
   */
  async remove(member: Member): Promise<boolean> {
    const index = this.members.indexOf(member);
    if (index < 0) return this.stopping;
    this.members.splice(index, 1);
    if (this.members.length > 0) {
      await member.busy?.catch(() => undefined);
      return false;
    }
    await this.shutdown();
    return true;
  }

  /** Resolves when the delivery loop has ended (after `shutdown`). */
  async finished(): Promise<void> {
    await this.loop;
  }

  async shutdown(): Promise<void> {
    this.stopping = true;
    this.members.length = 0;
    this.stop.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const seen = this.version;
      let batch: { events: ConsumedEvent[]; next: number };
      try {
        batch = await this.source.read(this.position, this.batchSize);
      } catch (error) {
        if (this.stopping) return;
        this.logger.error('event log: read failed; retrying', { ...this.label, error: String(error) });
        await this.pause(this.members[0]?.retryDelayMs ?? 100);
        continue;
      }
      if (batch.events.length === 0) {
        if (this.version === seen && !this.stopping) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      await this.deliver(batch.events, batch.next);
    }
  }

  /** Hands the batch to members in turn until one handles it and the new position is committed. */
  private async deliver(events: ConsumedEvent[], next: number): Promise<void> {
    while (!this.stopping) {
      const member = this.members[this.turn++ % this.members.length];
      if (member === undefined) return;
      const attempt = member.handler(events.slice());
      member.busy = attempt;
      try {
        await attempt;
      } catch (error) {
        this.logger.warn('event handler failed; the batch will be delivered again', {
          ...this.label,
          from: events[0]!.position,
          count: events.length,
          retryDelayMs: member.retryDelayMs,
          error: String(error),
        });
        await this.pause(member.retryDelayMs);
        continue;
      } finally {
        member.busy = undefined;
      }
      try {
        await this.source.commit(next);
        this.position = next;
        return;
      } catch (error) {
        // The batch was handled but its position not saved: it is delivered again (at least once).
        this.logger.error('event log: commit failed; the batch will be delivered again', {
          ...this.label,
          error: String(error),
        });
        await this.pause(member.retryDelayMs);
      }
    }
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.stop.signal }).catch(() => undefined);
  }
}
