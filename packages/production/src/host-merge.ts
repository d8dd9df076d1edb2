import type { HostAwareWalk } from '@herald/core/fate';
import { HostDown } from './executor-records';

/** One host's items a page at a time: `fetch(cursor)` gives a page and the cursor of the next (null: the end). */
export interface HostPages<T, C> {
  host: string;
  first: C;
  fetch(cursor: C): Promise<{ items: T[]; next: C | null }>;
}

interface Stream<T, C> {
  source: HostPages<T, C>;
  page: T[];
  at: number;
  next: C | null;
}

/**
 * Several hosts' ordered items as one ordered walk (a k-way merge by `keyOf`),
 * holding one page per host. Items of equal key from several hosts are one
 * item, `pick`'s choice (a batch delivered again by another executor after a
 * failover). A host that does not answer is named in `unreachable` and gives
 * nothing more; since every host's next page is read before any item past
 * its last one is given, `unreachable` is complete for every key up to the
 * item just given.
 */
export class HostMerge<T, C> implements AsyncIterable<T>, HostAwareWalk {
  readonly unreachable = new Set<string>();

  constructor(
    private readonly sources: readonly HostPages<T, C>[],
    private readonly keyOf: (item: T) => number,
    private readonly pick: (a: T, b: T) => T,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const streams: Stream<T, C>[] = this.sources.map((source) => ({ source, page: [], at: 0, next: source.first }));
    for (;;) {
      await Promise.all(streams.map((s) => this.refill(s)));
      let key = Infinity;
      for (const s of streams) if (s.at < s.page.length) key = Math.min(key, this.keyOf(s.page[s.at]!));
      if (key === Infinity) return;
      let chosen: T | undefined;
      for (const s of streams) {
        const head = s.page[s.at];
        if (head === undefined || this.keyOf(head) !== key) continue;
        chosen = chosen === undefined ? head : this.pick(chosen, head);
        s.at++;
      }
      yield chosen!;
    }
  }

  /** Reads the stream's next page once its current one is used up (pages may come back empty before the end). */
  private async refill(stream: Stream<T, C>): Promise<void> {
    while (stream.at >= stream.page.length && stream.next !== null) {
      try {
        const { items, next } = await stream.source.fetch(stream.next);
        stream.page = items;
        stream.at = 0;
        stream.next = next;
      } catch (error) {
        if (!(error instanceof HostDown)) throw error;
        this.unreachable.add(stream.source.host);
        stream.page = [];
        stream.at = 0;
        stream.next = null;
      }
    }
  }
}
