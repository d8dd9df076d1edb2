import type { BusEvent, EventBus } from '@herald/core/ports';

/**
 * Batches' reports put in one publish to the reports stream, at most: the
 * batches written while the previous publish was under way, so rarely more
 * than the executor's confirmations in line; the bound only keeps one
 * produce request small.
 */
export const REPORTS_PER_PUBLISH = 16;

/** One produce call's worth of events, open to more until its call starts. */
interface Group {
  topic: string;
  events: BusEvent[];
  published: Promise<void>;
}

/**
 * Publishes to an EventBus one call at a time, in the order of the `publish`
 * calls, and puts every event handed while a call is under way into the next
 * call (a group commit): the executor's reports stream takes one produce per
 * few batches instead of one per batch, and a batch's publish no longer waits
 * in its confirmation's turn (confirmation-line.ts) for the produces of the
 * batches before it.
 *
 * Nothing is held back by a timer: an event handed while no call is under way
 * goes out in the next microtask, alone or with the events handed in the same
 * turn. A call carries at most `maxEvents` events (and one topic); beyond it
 * the next group opens.
 *
 * Each `publish` resolves once its own call resolved (its events durably
 * accepted, as EventBus.publish promises) and rejects with that call's error:
 * a failed call fails every event in it, and the calls after it go on. Order
 * holds as with one call per event: calls never overlap, and they go out in
 * the order their first events were handed.
 */
export class GroupedPublisher implements Pick<EventBus, 'publish'> {
  /** The group still open to events, if any: it has not started its call yet. */
  private open: Group | undefined;
  /** Settles once the newest group's call settled, however it did. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly maxEvents: number,
  ) {
    if (!Number.isInteger(maxEvents) || maxEvents < 1)
      throw new RangeError(`maxEvents must be an integer >= 1, not ${maxEvents}`);
  }

  publish(topic: string, events: readonly BusEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const group = this.groupFor(topic, events.length);
    group.events.push(...events);
    return group.published;
  }

  /** The open group if `count` more events of `topic` fit in it, else a new one (which is then open). */
  private groupFor(topic: string, count: number): Group {
    const open = this.open;
    if (open !== undefined && open.topic === topic && open.events.length + count <= this.maxEvents) return open;
    const group: Group = { topic, events: [], published: Promise.resolve() };
    group.published = this.tail.then(() => {
      // Closed as its call starts: what comes from now on goes with the next call.
      if (this.open === group) this.open = undefined;
      return this.bus.publish(group.topic, group.events);
    });
    this.tail = group.published.catch(() => undefined);
    this.open = group;
    return group;
  }
}
