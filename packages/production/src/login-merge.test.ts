import fc from 'fast-check';
import type { LoginCounts } from '@herald/core/fate';
import { bucketRuns, countsByBucket, latestCounts, splitBuckets } from './login-merge';
import { BUCKET_SPAN, OUTCOME_CODES, type BucketOutcomes, type BucketTable } from './login-wire';

interface Outcome {
  uin: number;
  code: number;
  at: number;
}

/** One host's outcomes as the wire gives them: ascending uins, one outcome each. */
function columns(outcomes: readonly Outcome[]): BucketOutcomes {
  const sorted = [...new Map(outcomes.map((o) => [o.uin, o])).values()].sort((a, b) => a.uin - b.uin);
  return {
    uins: Uint32Array.from(sorted, (o) => o.uin),
    codes: Uint8Array.from(sorted, (o) => o.code),
    at: Float64Array.from(sorted, (o) => o.at),
  };
}

/** What counting each uin once means, written plainly: its latest outcome, the first host's on a tie. */
function countedPlainly(parts: readonly BucketOutcomes[]): LoginCounts {
  const latest = new Map<number, { code: number; at: number }>();
  for (const part of parts)
    part.uins.forEach((uin, i) => {
      const seen = latest.get(uin);
      if (seen === undefined || part.at[i]! > seen.at) latest.set(uin, { code: part.codes[i]!, at: part.at[i]! });
    });
  const counts: LoginCounts = { delivered: 0, expired: 0, over_frequency: 0 };
  for (const { code } of latest.values()) counts[OUTCOME_CODES[code]!] += 1;
  return counts;
}

/** A host's bucket table counted from its outcomes (writes: the number of outcomes, as a log starting empty has). */
function tableOf(part: BucketOutcomes): BucketTable {
  const rows = new Map<number, number[]>();
  part.uins.forEach((uin, i) => {
    const bucket = Math.floor(uin / BUCKET_SPAN);
    const row = rows.get(bucket) ?? [0, 0, 0, 0];
    row[part.codes[i]!]! += 1;
    row[3]! += 1;
    rows.set(bucket, row);
  });
  const buckets = [...rows.keys()].sort((a, b) => a - b);
  return {
    buckets: Uint32Array.from(buckets),
    counts: Uint32Array.from(buckets.flatMap((b) => rows.get(b)!.slice(0, 3))),
    writes: Float64Array.from(buckets, (b) => rows.get(b)![3]!),
  };
}

function sum(...all: LoginCounts[]): LoginCounts {
  const total: LoginCounts = { delivered: 0, expired: 0, over_frequency: 0 };
  for (const counts of all) for (const kind of OUTCOME_CODES) total[kind] += counts[kind];
  return total;
}

// Uins in a few buckets (so hosts share some), times that often tie.
const outcome = fc.record({
  uin: fc.integer({ min: 0, max: 5 * BUCKET_SPAN - 1 }),
  code: fc.integer({ min: 0, max: 2 }),
  at: fc.integer({ min: 0, max: 20 }),
});
const hosts = fc.array(fc.array(outcome, { maxLength: 60 }), { minLength: 1, maxLength: 4 });

describe('counting login outcomes once across executors', () => {
  it("counts each uin once by its latest outcome, the first host's on a tie", () => {
    fc.assert(
      fc.property(hosts, (outcomes) => {
        const parts = outcomes.map(columns);
        expect(latestCounts(parts)).toEqual(countedPlainly(parts));
      }),
    );
  });

  it('adds the buckets one host holds as counted and lists those several hold, which merged give the same total', () => {
    fc.assert(
      fc.property(hosts, (outcomes) => {
        const parts = outcomes.map(columns);
        const names = parts.map((_, h) => `executor-${h + 1}`);
        const { alone, shared } = splitBuckets(names, parts.map(tableOf));
        for (const { holders } of shared) expect(holders.length).toBeGreaterThan(1);
        const merged = bucketRuns(shared).flatMap((run) => {
          const first = run.buckets[0]!.bucket;
          expect(run.buckets.map((b) => b.bucket)).toEqual(run.buckets.map((_, i) => first + i));
          const runParts = run.holders.map((h) => parts[h]!);
          return countsByBucket(runParts, first, run.buckets.length);
        });
        expect(sum(alone, ...merged)).toEqual(countedPlainly(parts));
      }),
    );
  });

  it("signs a shared bucket by each holder's name, counts and writes, so a change of any is a new signature", () => {
    const part = (uins: number[], code: number) => columns(uins.map((uin) => ({ uin, code, at: 1 })));
    const before = splitBuckets(['a', 'b'], [tableOf(part([1, 2], 0)), tableOf(part([2], 0))]).shared[0]!;
    const again = splitBuckets(['a', 'b'], [tableOf(part([1, 2], 0)), tableOf(part([2], 0))]).shared[0]!;
    const moved = splitBuckets(['a', 'b'], [tableOf(part([1, 2], 0)), tableOf(part([2], 1))]).shared[0]!;
    const renamed = splitBuckets(['a', 'c'], [tableOf(part([1, 2], 0)), tableOf(part([2], 0))]).shared[0]!;
    expect(again.signature).toBe(before.signature);
    expect(new Set([before.signature, moved.signature, renamed.signature]).size).toBe(3);
  });

  it('cuts a run of buckets only where the numbers or the holders change', () => {
    const shared = (bucket: number, holders: number[]) => ({ bucket, holders, signature: '' });
    const runs = bucketRuns([shared(1, [0, 1]), shared(2, [0, 1]), shared(4, [0, 1]), shared(5, [0, 2])]);
    expect(runs.map((run) => run.buckets.map((b) => b.bucket))).toEqual([[1, 2], [4], [5]]);
  });
});
