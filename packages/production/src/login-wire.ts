import type { LoginOutcomeKind } from '@herald/core/fate';
import { LOGIN_BUCKET_BITS, type LoginBucket } from '@herald/core/ports';

/**
 * The compact forms in which an executor's management endpoint gives its
 * login outcomes' buckets and one bucket's outcomes (management-records.ts),
 * so an interface merges typed arrays rather than JSON objects: each a JSON
 * field holding base64 of little-endian numbers, column after column.
 */

/** Outcome kinds by code, as the executors' logs store them. */
export const OUTCOME_CODES: readonly LoginOutcomeKind[] = ['delivered', 'expired', 'over_frequency'];
/** The most outcomes one bucket can hold: one for each uin it spans. */
export const BUCKET_SPAN = 2 ** LOGIN_BUCKET_BITS;

/** A host's buckets as columns: bucket numbers ascending, their counts by kind, and their write counts. */
export interface BucketTable {
  buckets: Uint32Array;
  /** 3 per bucket: delivered, expired, over_frequency. */
  counts: Uint32Array;
  writes: Float64Array;
}

/** One bucket's outcomes on one host: uins ascending, each one's kind code and time. */
export interface BucketOutcomes {
  uins: Uint32Array;
  codes: Uint8Array;
  at: Float64Array;
}

/** GET /records/login-buckets's body: `{buckets: n, table: base64(n x u32 bucket, 3n x u32 count, n x f64 writes)}`. */
export interface WireBucketTable {
  buckets: number;
  table: string;
}

/** GET /records/bucket-outcomes's body: `{outcomes: n, buckets: k, columns: base64(n x u32 uin, n x f64 at, n x u8 code)}`. */
export interface WireBucketOutcomes {
  outcomes: number;
  /** How many whole buckets from the one asked the outcomes are. */
  buckets: number;
  columns: string;
}

/** The answer could not be read: the executor and its interface disagree on the form. */
export class MalformedAnswer extends Error {
  constructor(field: string, why: string) {
    super(`${field}: ${why}`);
    this.name = 'MalformedAnswer';
  }
}

export function encodeBucketTable(buckets: readonly LoginBucket[]): WireBucketTable {
  const n = buckets.length;
  const bytes = Buffer.allocUnsafe(24 * n);
  buckets.forEach(({ bucket, counts, writes }, i) => {
    bytes.writeUInt32LE(bucket, 4 * i);
    OUTCOME_CODES.forEach((kind, k) => bytes.writeUInt32LE(counts[kind], 4 * n + 4 * (3 * i + k)));
    bytes.writeDoubleLE(writes, 16 * n + 8 * i);
  });
  return { buckets: n, table: bytes.toString('base64') };
}

export function decodeBucketTable(wire: WireBucketTable): BucketTable {
  const n = wire.buckets;
  const bytes = bytesOf('table', wire.table, n, 24);
  const table: BucketTable = {
    buckets: new Uint32Array(n),
    counts: new Uint32Array(3 * n),
    writes: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    table.buckets[i] = bytes.readUInt32LE(4 * i);
    if (i > 0 && table.buckets[i]! <= table.buckets[i - 1]!) throw new MalformedAnswer('table', 'buckets out of order');
    table.writes[i] = bytes.readDoubleLE(16 * n + 8 * i);
  }
  for (let j = 0; j < 3 * n; j++) table.counts[j] = bytes.readUInt32LE(4 * n + 4 * j);
  return table;
}

export function encodeBucketOutcomes(outcomes: readonly { uin: number; outcome: LoginOutcomeKind; at: number }[]) {
  const n = outcomes.length;
  const bytes = Buffer.allocUnsafe(13 * n);
  outcomes.forEach(({ uin, outcome, at }, i) => {
    bytes.writeUInt32LE(uin, 4 * i);
    bytes.writeDoubleLE(at, 4 * n + 8 * i);
    bytes.writeUInt8(OUTCOME_CODES.indexOf(outcome), 12 * n + i);
  });
  return { outcomes: n, columns: bytes.toString('base64') };
}

/** The outcomes of the whole buckets [first, first + buckets), read from an answer to an ask of at most `asked`. */
export function decodeBucketPage(
  wire: WireBucketOutcomes,
  first: number,
  asked: number,
): { buckets: number; outcomes: BucketOutcomes } {
  const { buckets } = wire;
  if (typeof buckets !== 'number' || !Number.isSafeInteger(buckets) || buckets < 1 || buckets > asked)
    throw new MalformedAnswer('buckets', `a count from 1 to ${asked} expected`);
  const outcomes = decodeBucketOutcomes(wire);
  const n = outcomes.uins.length;
  if (n > 0 && (outcomes.uins[0]! < first * BUCKET_SPAN || outcomes.uins[n - 1]! >= (first + buckets) * BUCKET_SPAN))
    throw new MalformedAnswer('columns', `uins outside buckets [${first}, ${first + buckets})`);
  return { buckets, outcomes };
}

export function decodeBucketOutcomes(wire: Omit<WireBucketOutcomes, 'buckets'>): BucketOutcomes {
  const n = wire.outcomes;
  const bytes = bytesOf('columns', wire.columns, n, 13);
  const outcomes: BucketOutcomes = { uins: new Uint32Array(n), codes: new Uint8Array(n), at: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    outcomes.uins[i] = bytes.readUInt32LE(4 * i);
    if (i > 0 && outcomes.uins[i]! <= outcomes.uins[i - 1]!) throw new MalformedAnswer('columns', 'uins out of order');
    outcomes.at[i] = bytes.readDoubleLE(4 * n + 8 * i);
    outcomes.codes[i] = bytes.readUInt8(12 * n + i);
    if (outcomes.codes[i]! >= OUTCOME_CODES.length) throw new MalformedAnswer('columns', `unknown outcome code`);
  }
  return outcomes;
}

function bytesOf(field: string, base64: unknown, n: unknown, width: number): Buffer {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > BUCKET_SPAN)
    throw new MalformedAnswer(field, `a count from 0 to ${BUCKET_SPAN} expected`);
  if (typeof base64 !== 'string') throw new MalformedAnswer(field, 'base64 expected');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length !== width * n) throw new MalformedAnswer(field, `${width * n} bytes expected, got ${bytes.length}`);
  return bytes;
}
