import { ValidationError } from '../errors';

/**
 * An audience source: where a broadcast's recipients come from when they are
 * not an uploaded file. Followers of an account, the users a targeting query
 * matches, the rows of a MySQL table: each is an adapter behind this one
 * port, and each is converted into an ordinary recipient-list file
 * (`importFromSource` in @herald/audience), so a task never knows which
 * source its list came from (docs/audience-sources.md).
 *
 * Contract, checked by the AudienceSource conformance suite
 * (@herald/testing, `audienceSourceConformance`) for every adapter:
 *
 * - `read` streams the audience in batches. Across the whole stream the uins
 *   are **strictly ascending**: sorted and without duplicates, within a batch
 *   and from one batch to the next. Every adapter walks an index in uin order
 *   (keyset pagination over a uin column, bitsets chunk by chunk), so this
 *   costs nothing, and the list written from it is SORTED | UNIQUE without a
 *   sort. (The converter still checks: the stored flags say what it found.)
 * - Every uin is in [0, uinLimit). A row that cannot give one is not yielded
 *   but counted in its batch's `bad`, by reason (BAD_ROW_REASONS); the
 *   converter adds them up and applies the same bad-share threshold as text
 *   uploads.
 * - A batch holds at most `batchSize` uins (the adapter's option); an empty
 *   batch carrying only bad counts is allowed, so a long run of bad rows still
 *   reports progress.
 * - Bad input known before streaming (a malformed query, an unsafe table
 *   name) throws at once: QueryError (QUERY_INVALID) or ValidationError.
 *   Input found bad on the first read (a missing table or column) throws
 *   ValidationError from the iterator before the first batch.
 * - A failure after streaming started (connection lost, table dropped, store
 *   closed) throws a typed HeraldError from the iterator, never a raw driver
 *   error: UNAVAILABLE (retriable) for an outage, AUDIENCE_SOURCE_FAILED
 *   otherwise. The converter then discards the partial list: nothing is stored
 *   and no ListMeta exists, so no task can start on half an audience.
 * - `read` may be called more than once; each call is a fresh stream of the
 *   audience as it is then (no snapshot isolation is promised: a follower
 *   added during a read may or may not be in it).
 * - Breaking out of the iteration (or aborting `signal`) releases what the
 *   read holds (a pooled connection, an iterator).
 */
export interface AudienceSource {
  /** 'followers', 'targeting', 'table', ...: for logs, jobs and errors. */
  readonly kind: string;
  /** What this source reads, for job records and logs; never holds secrets. */
  readonly description: Readonly<Record<string, unknown>>;
  read(options: AudienceReadOptions): AsyncIterable<AudienceBatch>;
}

export interface AudienceReadOptions {
  /** Uins must be below this: 2^uinSpaceBits (config `uinLimit`). */
  uinLimit: number;
  /** Stops the read between batches; the iterator then throws the signal's reason. */
  signal?: AbortSignal;
}

export interface AudienceBatch {
  /** Valid uins, strictly ascending, continuing the previous batch's order. */
  uins: Uint32Array;
  /** Rows read since the previous batch that gave no uin, by reason. */
  bad?: BadRowCounts;
}

/**
 * Why a row gave no uin. Integer columns only ever give `null`, `negative`
 * and `out_of_range`; the others are for sources that read text.
 */
export const BAD_ROW_REASONS = ['null', 'not_a_number', 'negative', 'fraction', 'out_of_range'] as const;
export type BadRowReason = (typeof BAD_ROW_REASONS)[number];
export type BadRowCounts = Partial<Record<BadRowReason, number>>;

/** Uins per batch when an adapter is not told: a page of a keyset read. */
export const DEFAULT_SOURCE_BATCH = 10_000;
/** The most uins per batch any adapter accepts. */
export const MAX_SOURCE_BATCH = 1 << 20;

/** Checks an adapter's `batchSize` option (1..2^20), defaulting to `fallback`. */
export function checkSourceBatchSize(value: unknown, fallback = DEFAULT_SOURCE_BATCH, field = 'batchSize'): number {
  const size = value ?? fallback;
  if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > MAX_SOURCE_BATCH)
    throw new ValidationError(`${field} must be an integer in 1..${MAX_SOURCE_BATCH}`, { field });
  return size as number;
}

/** Adds `more` into `into` (both by reason); returns `into`. */
export function addBadRows(into: BadRowCounts, more: BadRowCounts | undefined): BadRowCounts {
  if (more === undefined) return into;
  for (const reason of BAD_ROW_REASONS) {
    const n = more[reason];
    if (n !== undefined && n > 0) into[reason] = (into[reason] ?? 0) + n;
  }
  return into;
}

/** Bad rows of every reason together. */
export function badRowTotal(counts: BadRowCounts): number {
  let total = 0;
  for (const reason of BAD_ROW_REASONS) total += counts[reason] ?? 0;
  return total;
}

/**
 * The reason an integer read from a source is not a uin, or undefined when
 * it is one. Accepts numbers, bigints and decimal strings (drivers answer
 * large BIGINTs as strings), so adapters classify the same way.
 */
export function classifyUin(value: unknown, uinLimit: number): BadRowReason | undefined {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'not_a_number';
    if (value < 0) return 'negative';
    if (!Number.isInteger(value)) return 'fraction';
    return value < uinLimit ? undefined : 'out_of_range';
  }
  if (typeof value === 'bigint') return value < 0n ? 'negative' : value < BigInt(uinLimit) ? undefined : 'out_of_range';
  if (typeof value === 'string') {
    if (!/^-?[0-9]+(\.[0-9]+)?$/.test(value)) return 'not_a_number';
    if (value.startsWith('-')) return 'negative';
    if (value.includes('.')) return 'fraction'; // even 12.0, as in text lists
    return BigInt(value) < BigInt(uinLimit) ? undefined : 'out_of_range';
  }
  return 'not_a_number';
}

/** Checks a batch given to a membership check: a Uint32Array, strictly ascending, at most MAX_SOURCE_BATCH uins. */
export function checkAscendingBatch(uins: unknown, field = 'uins'): Uint32Array {
  if (!(uins instanceof Uint32Array) || uins.length > MAX_SOURCE_BATCH)
    throw new ValidationError(`${field} must be a Uint32Array of at most ${MAX_SOURCE_BATCH} uins`, { field });
  for (let i = 1; i < uins.length; i++) {
    if (uins[i]! <= uins[i - 1]!)
      throw new ValidationError(`${field} must be strictly ascending (at ${i}: ${uins[i - 1]} then ${uins[i]})`, {
        field,
        at: i,
      });
  }
  return uins;
}
