import type { LoginCounts } from '@herald/core/fate';
import { LOGIN_BUCKET_BITS, type LoginBucket } from '@herald/core/ports';
import { key, tag } from './keys';

/**
 * The login outcomes' counts by bucket of uins that LevelDeliveryRecordLog
 * keeps beside its per-task counts (the LoginBucketLog port):
 *
 *   'b' taskId (u64) bucket (u32) -> delivered, expired, over_frequency, writes (4 x f64 BE)
 *   'B' taskId (u64)              -> nothing: the task's buckets count all its outcomes
 *
 * A task recorded before the buckets existed has outcomes and no 'B' key: its
 * buckets are counted by a scan of its outcomes, once, the next time it is
 * recorded (and written with the 'B' key), or on each read until then.
 */
export const bucketKey = (taskId: number, bucket: number) => key(tag('b'), { u64: taskId }, { u32: bucket });
export const bucketsKeptKey = (taskId: number) => key(tag('B'), { u64: taskId });
const BUCKET_IN_KEY = 9;

export const bucketOf = (uin: number): number => uin >>> LOGIN_BUCKET_BITS;

export function emptyBucket(bucket: number): LoginBucket {
  return { bucket, counts: { delivered: 0, expired: 0, over_frequency: 0 }, writes: 0 };
}

export function encodeBucket({ counts, writes }: LoginBucket): Buffer {
  const value = Buffer.allocUnsafe(32);
  value.writeDoubleBE(counts.delivered, 0);
  value.writeDoubleBE(counts.expired, 8);
  value.writeDoubleBE(counts.over_frequency, 16);
  value.writeDoubleBE(writes, 24);
  return value;
}

export function decodeBucket(key: Buffer, value: Buffer): LoginBucket {
  return {
    bucket: key.readUInt32BE(BUCKET_IN_KEY),
    counts: {
      delivered: value.readDoubleBE(0),
      expired: value.readDoubleBE(8),
      over_frequency: value.readDoubleBE(16),
    },
    writes: value.readDoubleBE(24),
  };
}

/** The bucket holding `uin` in `buckets`, added empty if absent. */
export function bucketIn(buckets: Map<number, LoginBucket>, uin: number): LoginBucket {
  const bucket = bucketOf(uin);
  let entry = buckets.get(bucket);
  if (entry === undefined) buckets.set(bucket, (entry = emptyBucket(bucket)));
  return entry;
}

/** Moves one outcome's count within its bucket: `previous` (recorded before, or none) out, `next` in, one write more. */
export function countIn(bucket: LoginBucket, previous: keyof LoginCounts | undefined, next: keyof LoginCounts): void {
  if (previous !== undefined) bucket.counts[previous] -= 1;
  bucket.counts[next] += 1;
  bucket.writes += 1;
}
