import type { LoginCounts } from '@herald/core/fate';
import { BUCKET_SPAN, OUTCOME_CODES, type BucketOutcomes, type BucketTable } from './login-wire';

/**
 * Counting a task's recipients once across executors (pure, no I/O): a uin
 * lives in one bucket of 2^16 uins, so a bucket only one executor holds
 * outcomes in is counted as that executor counted it, and only a bucket
 * several hold needs their outcomes merged by uin, the latest counted.
 */

/** A bucket several hosts hold outcomes in: which (indexes into the tables given) and a key of what they hold. */
export interface SharedBucket {
  bucket: number;
  holders: number[];
  /** Equal for two reads only when each holder's counts and writes are equal: the merged count may be reused. */
  signature: string;
}

export interface BucketSplit {
  /** The counts of the buckets one host alone holds. */
  alone: LoginCounts;
  shared: SharedBucket[];
}

export function noCounts(): LoginCounts {
  return { delivered: 0, expired: 0, over_frequency: 0 };
}

/** Walks the hosts' tables (each ascending) in step: buckets held by one host summed, the others listed. */
export function splitBuckets(hosts: readonly string[], tables: readonly BucketTable[]): BucketSplit {
  const alone = noCounts();
  const shared: SharedBucket[] = [];
  const at = tables.map(() => 0);
  for (;;) {
    let bucket = Infinity;
    tables.forEach((t, h) => {
      if (at[h]! < t.buckets.length) bucket = Math.min(bucket, t.buckets[at[h]!]!);
    });
    if (bucket === Infinity) return { alone, shared };
    const holders = tables.flatMap((t, h) => (t.buckets[at[h]!] === bucket ? [h] : []));
    if (holders.length === 1) addRow(alone, tables[holders[0]!]!, at[holders[0]!]!);
    else
      shared.push({ bucket, holders, signature: holders.map((h) => rowKey(hosts[h]!, tables[h]!, at[h]!)).join('|') });
    for (const h of holders) at[h]! += 1;
  }
}

/**
 * One bucket's outcomes from several hosts (each ascending by uin) counted
 * once per uin, by its latest outcome (on a tie, the first host's, as
 * ClusterDeliveryRecords.loginOf answers): one pass, nothing allocated per uin.
 */
export function latestCounts(parts: readonly BucketOutcomes[]): LoginCounts {
  const byCode = [0, 0, 0];
  const at = parts.map(() => 0);
  for (;;) {
    let uin = Infinity;
    for (let h = 0; h < parts.length; h++)
      if (at[h]! < parts[h]!.uins.length) uin = Math.min(uin, parts[h]!.uins[at[h]!]!);
    if (uin === Infinity) break;
    let code = -1;
    let latest = -Infinity;
    for (let h = 0; h < parts.length; h++) {
      const part = parts[h]!;
      const i = at[h]!;
      if (part.uins[i] !== uin) continue;
      if (code < 0 || part.at[i]! > latest) {
        code = part.codes[i]!;
        latest = part.at[i]!;
      }
      at[h] = i + 1;
    }
    byCode[code]! += 1;
  }
  const counts = noCounts();
  OUTCOME_CODES.forEach((kind, k) => (counts[kind] = byCode[k]!));
  return counts;
}

export function addCounts(total: LoginCounts, counts: LoginCounts): void {
  for (const kind of OUTCOME_CODES) total[kind] += counts[kind];
}

function addRow(total: LoginCounts, table: BucketTable, row: number): void {
  OUTCOME_CODES.forEach((kind, k) => (total[kind] += table.counts[3 * row + k]!));
}

function rowKey(host: string, table: BucketTable, row: number): string {
  const c = table.counts;
  return `${host}:${table.writes[row]}:${c[3 * row]},${c[3 * row + 1]},${c[3 * row + 2]}`;
}

/** Shared buckets numbered in a row with the same holders: one ask per holder reads them together. */
export interface BucketRun {
  holders: number[];
  buckets: SharedBucket[];
}

/** The shared buckets (ascending) grouped into runs. */
export function bucketRuns(shared: readonly SharedBucket[]): BucketRun[] {
  const runs: BucketRun[] = [];
  let run: BucketRun | undefined;
  for (const bucket of shared) {
    const last = run?.buckets[run.buckets.length - 1];
    const continues =
      run !== undefined && last!.bucket + 1 === bucket.bucket && run.holders.join() === bucket.holders.join();
    if (continues) run!.buckets.push(bucket);
    else runs.push((run = { holders: bucket.holders, buckets: [bucket] }));
  }
  return runs;
}

/**
 * Each of buckets [first, first + count) counted once per uin across the
 * hosts' outcomes (each ascending; outcomes of other buckets are passed
 * over), as latestCounts counts one: the hosts' outcomes are cut at the
 * bucket bounds as views, not copied.
 */
export function countsByBucket(parts: readonly BucketOutcomes[], first: number, count: number): LoginCounts[] {
  const at = parts.map(() => 0);
  const counts: LoginCounts[] = [];
  for (let bucket = first; bucket < first + count; bucket++) {
    const [start, end] = [bucket * BUCKET_SPAN, (bucket + 1) * BUCKET_SPAN];
    const slices = parts.map((part, h) => {
      let from = at[h]!;
      while (from < part.uins.length && part.uins[from]! < start) from++;
      let to = from;
      while (to < part.uins.length && part.uins[to]! < end) to++;
      at[h] = to;
      return {
        uins: part.uins.subarray(from, to),
        codes: part.codes.subarray(from, to),
        at: part.at.subarray(from, to),
      };
    });
    counts.push(latestCounts(slices));
  }
  return counts;
}
