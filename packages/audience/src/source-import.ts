/**
 * Converging an AudienceSource into an ordinary recipient-list file
 * (docs/audience-sources.md): the source's batches stream through a
 * RecipientListWriter (temp file, fsync, rename), so every source ends as a
 * stored list like an upload, with the same bad-share threshold as text
 * lists. On any failure the temp file is removed and nothing is published:
 * a task can never start on half an audience.
 */
import { mkdir } from 'node:fs/promises';
import {
  addBadRows,
  badRowTotal,
  type AudienceBatch,
  type AudienceSource,
  type BadRowCounts,
} from '@herald/core/ports';
import {
  AudienceSourceError,
  ErrorCodes,
  isHeraldError,
  ListFormatError,
  ValidationError,
  PRIVATE_DIR_MODE,
} from '@herald/core';
import type { ListMeta } from '@herald/core/task';
import { RecipientListWriter } from './list-writer';
import type { ListRepository } from './list-repository';
import { OrderTracker } from './order';
import { checkMaxBadRatio } from './text-import';

export interface SourceImportOptions {
  /** Owner recorded in the ListMeta. */
  accountId: string;
  /** Uins must lie in [0, uinLimit); a source yielding one outside fails the import (the adapter broke its contract). */
  uinLimit: number;
  /** As for text lists: rejected when bad rows exceed this share of the rows. @defaultValue 0.01 */
  maxBadRatio?: number;
  /** The id to store the list under (e.g. announced to the caller before the import ends); default: a new one. */
  listId?: string;
  /** Stops the import between batches; the partial list is discarded. */
  signal?: AbortSignal;
  /** Called after every batch with the counts so far (for a job's progress). */
  onProgress?: (progress: SourceImportProgress) => void;
}

export interface SourceImportProgress {
  /** Valid uins written so far. */
  uins: number;
  /** Bad rows so far, by reason. */
  bad: BadRowCounts;
}

export interface SourceImportReport {
  source: string;
  description: Readonly<Record<string, unknown>>;
  valid: number;
  bad: { total: number; byReason: BadRowCounts };
}

export interface SourceListImport {
  meta: ListMeta;
  report: SourceImportReport;
}

/** Errors a source throws about its input (not a failure half way): passed through unwrapped. */
const INPUT_ERRORS = new Set<string>([ErrorCodes.VALIDATION_FAILED, ErrorCodes.QUERY_INVALID]);

/**
 * Reads `source` to its end into a new list file in `lists`. Answers the
 * ListMeta (the caller stores it with `TaskStore.putList`, as for uploads)
 * and the counts.
 *
 * Throws, leaving no file behind:
 * - ValidationError / QueryError the source raised about its input;
 * - AudienceSourceError (AUDIENCE_SOURCE_FAILED) when the source failed
 *   after it started (its cause kept, `retriable` copied from it,
 *   `details.read` the uins read before the failure, `details.causeCode`);
 * - ListFormatError LIST_EMPTY (no uin, no bad row) or
 *   LIST_TOO_MANY_BAD_LINES (bad rows over `maxBadRatio`, details by reason);
 * - the signal's reason when aborted.
 */
export async function importFromSource(
  lists: ListRepository,
  source: AudienceSource,
  options: SourceImportOptions,
): Promise<SourceListImport> {
  if (typeof options.accountId !== 'string' || options.accountId.length === 0)
    throw new ValidationError('accountId must be a non-empty string');
  const maxBadRatio = checkMaxBadRatio(options.maxBadRatio);
  const id = options.listId ?? lists.newId();
  const path = lists.pathOf(id);
  await mkdir(lists.root, { recursive: true, mode: PRIVATE_DIR_MODE });
  const order = new OrderTracker();
  const bad: BadRowCounts = {};
  const writer = await RecipientListWriter.create(path);
  try {
    options.signal?.throwIfAborted();
    // Iterated by hand so that only the source's own failures are reported as the source's; a
    // write failure passes through as it is, and either way the source is told to let go.
    const batches = source
      .read({ uinLimit: options.uinLimit, ...(options.signal ? { signal: options.signal } : {}) })
      [Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        let step: IteratorResult<AudienceBatch>;
        try {
          step = await batches.next();
        } catch (error) {
          finished = true; // a throwing iterator is done
          throw sourceFailure(error, source, writer.count, bad, options.signal);
        }
        if (step.done === true) {
          finished = true;
          break;
        }
        options.signal?.throwIfAborted();
        const batch = step.value;
        checkBatch(batch.uins, options.uinLimit, source.kind);
        order.update(batch.uins);
        if (batch.uins.length > 0) await writer.write(batch.uins);
        addBadRows(bad, batch.bad);
        options.onProgress?.({ uins: writer.count, bad: { ...bad } });
      }
    } finally {
      if (!finished) await batches.return?.().catch(() => undefined);
    }
    const valid = writer.count;
    const report: SourceImportReport = {
      source: source.kind,
      description: source.description,
      valid,
      bad: { total: badRowTotal(bad), byReason: { ...bad } },
    };
    enforceSourcePolicy(report, maxBadRatio);
    const written = await writer.close(order.flags);
    const meta: ListMeta = {
      id,
      accountId: options.accountId,
      count: written.count,
      checksum: written.checksum,
      sorted: order.sorted,
      unique: order.unique,
      bytes: written.bytes,
      createdAt: lists.clock.now(),
    };
    return { meta, report };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** A batch that breaks the contract (not a Uint32Array, a uin out of range) is the source's failure, never a stored list. */
function checkBatch(uins: unknown, uinLimit: number, kind: string): void {
  if (!(uins instanceof Uint32Array)) throw new AudienceSourceError(kind, 'yielded a batch that is not a Uint32Array');
  if (uinLimit < 2 ** 32) {
    for (let i = 0; i < uins.length; i++) {
      if (uins[i]! >= uinLimit)
        throw new AudienceSourceError(kind, `yielded uin ${uins[i]} outside [0, ${uinLimit})`, {
          details: { uin: uins[i] },
        });
    }
  }
}

function sourceFailure(
  error: unknown,
  source: AudienceSource,
  read: number,
  bad: BadRowCounts,
  signal: AbortSignal | undefined,
): unknown {
  if (signal?.aborted && error === signal.reason) return error;
  if (isHeraldError(error) && (INPUT_ERRORS.has(error.code) || error.code === ErrorCodes.AUDIENCE_SOURCE_FAILED))
    return error;
  const causeCode = isHeraldError(error) ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new AudienceSourceError(source.kind, `failed after ${read} uins: ${message}; nothing was stored`, {
    cause: error,
    retriable: isHeraldError(error) ? error.retriable : false,
    details: { read, bad: { ...bad }, ...(causeCode === undefined ? {} : { causeCode }) },
  });
}

/** The text lists' threshold, over rows: LIST_EMPTY when nothing at all, LIST_TOO_MANY_BAD_LINES when bad rows are too many. */
export function enforceSourcePolicy(report: SourceImportReport, maxBadRatio: number): void {
  const { valid } = report;
  const bad = report.bad.total;
  if (valid === 0 && bad === 0)
    throw new ListFormatError('LIST_EMPTY', `audience source ${report.source} holds no uins`, {
      source: report.source,
    });
  if (valid === 0 || bad > maxBadRatio * (valid + bad)) {
    const why =
      valid === 0
        ? 'no row holds a valid uin'
        : `${bad} of ${valid + bad} rows are bad, more than maxBadRatio ${maxBadRatio} allows`;
    throw new ListFormatError('LIST_TOO_MANY_BAD_LINES', `audience source ${report.source} rejected: ${why}`, {
      source: report.source,
      maxBadRatio,
      valid,
      bad: report.bad,
    });
  }
}
