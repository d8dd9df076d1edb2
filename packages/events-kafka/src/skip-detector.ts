import type { Admin } from 'kafkajs';

/** A hole in one partition: offsets [from, to) never reached the group. */
export interface Hole {
  partition: number;
  from: bigint;
  to: bigint;
}

/**
 * Notices when a consumer group jumped over events it never read. kafkajs
 * answers a fetch below the partition's log start (OFFSET_OUT_OF_RANGE: the
 * retention deleted what the group was to read next) by moving the group to
 * the earliest (or latest) retained offset, with only a warning; the batch
 * it then hands over starts past the group's position.
 *
 * Per partition it keeps the offset the group is to read next: one past the
 * last batch this consumer finished, or, for a partition's first batch since
 * the group (re)joined, the group's committed offset (read with the admin
 * client; none yet means no position to compare, e.g. a new group). A batch
 * starting past that offset is a hole:
 * - on a topic with `delete` cleanup, always (offsets there are contiguous);
 * - on a compacted topic only if the position is below the partition's log
 *   start as well, since compaction itself leaves gaps between offsets.
 */
export class SkipDetector {
  private readonly next = new Map<number, bigint>();

  constructor(
    private readonly admin: Admin,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly compacted: boolean,
  ) {}

  /** After a (re)join: partitions may have been read by other members meanwhile, so positions come from the commits again. */
  forget(): void {
    this.next.clear();
  }

  /** The hole before a batch starting at `firstOffset`, if there is one. */
  async check(partition: number, firstOffset: string): Promise<Hole | undefined> {
    const first = BigInt(firstOffset);
    const expected = this.next.get(partition) ?? (await this.committed(partition));
    if (expected === undefined || first <= expected) return undefined;
    if (this.compacted && expected >= (await this.logStart(partition))) return undefined;
    return { partition, from: expected, to: first };
  }

  /** The consumer finished a batch ending at `lastOffset`. */
  consumed(partition: number, lastOffset: string): void {
    this.next.set(partition, BigInt(lastOffset) + 1n);
  }

  private async committed(partition: number): Promise<bigint | undefined> {
    const [topic] = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] });
    const offset = topic?.partitions.find((p) => p.partition === partition)?.offset;
    return offset === undefined || BigInt(offset) < 0n ? undefined : BigInt(offset);
  }

  private async logStart(partition: number): Promise<bigint> {
    const offsets = await this.admin.fetchTopicOffsets(this.topic);
    return BigInt(offsets.find((p) => p.partition === partition)?.low ?? '0');
  }
}
