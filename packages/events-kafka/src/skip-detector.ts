import type { Admin } from 'kafkajs';

/** A hole in one partition: offsets [from, to) never reached the group; `from` undefined when not known. */
export interface Hole {
  partition: number;
  from?: bigint;
  to: bigint;
}

/**
 * What kafkajs commits in place of a group's offset when it resets a
 * partition after OFFSET_OUT_OF_RANGE to the earliest retained offset
 * (`fromBeginning`). It commits nothing else below 0: a group without a
 * commit reads as -1.
 */
const RESET_TO_EARLIEST = -2n;

/**
 * Notices when a consumer group jumped over events it never read. kafkajs
 * answers a fetch below the partition's log start (OFFSET_OUT_OF_RANGE: the
 * retention deleted what the group was to read next) by committing "earliest"
 * (or "latest") for the partition and reading from there, with only a
 * warning; the batch it then hands over starts past the group's position.
 *
 * Per partition it keeps the offset the group is to read next: one past the
 * last batch this consumer finished; before that, the group's committed
 * offset as read when the consumer started, or when it (re)joined the group
 * (`load`, racing kafkajs's own offset fetch, fetch and reset: three round
 * trips to its one). A commit kafkajs already replaced with its "earliest"
 * marker is a hole whose start is lost. A batch starting past the position
 * is a hole:
 * - on a topic with `delete` cleanup, always (offsets there are contiguous);
 * - on a compacted topic only if the position is below the partition's log
 *   start as well, since compaction itself leaves gaps between offsets.
 */
export class SkipDetector {
  private readonly next = new Map<number, bigint>();
  private committed = new Map<number, bigint>();
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly admin: Admin,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly compacted: boolean,
  ) {}

  /** Reads the group's committed offsets (awaited by the next `check`). Call before the consumer runs and at each (re)join. */
  load(): Promise<void> {
    const loading = this.readCommitted().then((offsets) => {
      for (const [partition, offset] of offsets) {
        // A reset marker over a real offset read earlier: kafkajs won the race; the earlier offset says where the hole began.
        if (offset === RESET_TO_EARLIEST && (this.committed.get(partition) ?? -1n) >= 0n) continue;
        this.committed.set(partition, offset);
      }
    });
    this.loading = loading.catch(() => undefined); // a failed read leaves the last one; `check` fails if there is none
    return loading;
  }

  /** After a (re)join: partitions may have been read by other members meanwhile, so positions come from the commits again. */
  rejoined(): void {
    this.next.clear();
    void this.load().catch(() => undefined);
  }

  /** The hole before a batch starting at `firstOffset`, if there is one. */
  async check(partition: number, firstOffset: string): Promise<Hole | undefined> {
    await this.loading;
    const first = BigInt(firstOffset);
    const expected = this.next.get(partition) ?? this.committed.get(partition);
    if (expected === RESET_TO_EARLIEST) return { partition, to: first };
    if (expected === undefined || expected < 0n || first <= expected) return undefined;
    if (this.compacted && expected >= (await this.logStart(partition))) return undefined;
    return { partition, from: expected, to: first };
  }

  /** The consumer finished a batch ending at `lastOffset`. */
  consumed(partition: number, lastOffset: string): void {
    this.next.set(partition, BigInt(lastOffset) + 1n);
  }

  private async readCommitted(): Promise<Map<number, bigint>> {
    const [topic] = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] });
    return new Map((topic?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  }

  private async logStart(partition: number): Promise<bigint> {
    const offsets = await this.admin.fetchTopicOffsets(this.topic);
    return BigInt(offsets.find((p) => p.partition === partition)?.low ?? '0');
  }
}
