/**
 * Converting a text/CSV upload into a recipient-list file while it streams
 * in, and the policy that decides whether the result is kept: too many bad
 * lines (or no valid uin) rejects the upload and leaves nothing behind.
 * Internal: ListRepository.importText is the public entry.
 */
import { ListFormatError, ValidationError } from '@herald/core';
import { positiveInteger } from './fs-util';
import { RecipientListWriter, type WrittenList } from './list-writer';
import { OrderTracker } from './order';
import { TextListParser, type TextListOptions, type TextListReport } from './text-list';

export interface TextImportPolicy {
  /**
   * The upload is rejected when bad lines exceed this share of the non-blank,
   * non-header lines (bad / (valid + bad) > maxBadRatio). 0 rejects any bad
   * line; 1 accepts any number of them as long as one uin is valid.
   * @defaultValue 0.01
   */
  maxBadRatio?: number;
}

export const DEFAULT_MAX_BAD_RATIO = 0.01;

export interface ConvertedTextList {
  written: WrittenList;
  sorted: boolean;
  unique: boolean;
  /** Bytes of text read. */
  uploadBytes: number;
  report: TextListReport;
}

export function checkMaxBadRatio(value: number | undefined): number {
  const ratio = value ?? DEFAULT_MAX_BAD_RATIO;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) {
    throw new ValidationError(`maxBadRatio must be a number in [0, 1], got ${String(ratio)}`, {
      option: 'maxBadRatio',
      value: ratio,
    });
  }
  return ratio;
}

/**
 * Throws when the report fails the policy: LIST_EMPTY for an upload with no
 * uin and no bad line (as for binary lists), LIST_TOO_MANY_BAD_LINES with the
 * report in `details` otherwise.
 */
export function enforceTextPolicy(report: TextListReport, maxBadRatio: number): void {
  const { valid } = report;
  const bad = report.bad.total;
  if (valid === 0 && bad === 0)
    throw new ListFormatError('LIST_EMPTY', 'recipient list holds no uins', {
      lines: report.lines,
      blank: report.blank,
    });
  if (valid === 0 || bad > maxBadRatio * (valid + bad)) {
    const { format, lines, blank, header, column, firstBad } = report;
    const share = ((100 * bad) / (valid + bad)).toFixed(2);
    const why =
      valid === 0
        ? 'no line holds a valid uin'
        : `${bad} of ${valid + bad} lines (${share}%) are bad, more than maxBadRatio ${maxBadRatio} allows`;
    throw new ListFormatError('LIST_TOO_MANY_BAD_LINES', `text recipient list rejected: ${why}`, {
      maxBadRatio,
      format,
      lines,
      valid,
      blank,
      header,
      column,
      bad: report.bad,
      firstBad,
    });
  }
}

/**
 * Parses `source` and writes its uins to `path` (through `path + '.tmp'`,
 * renamed only if the policy accepts the result). Memory: the parser's line
 * buffer plus one chunk's uins; each chunk's uins are written, and the writer
 * drained, before the next chunk is pulled. Any failure removes the temp file.
 */
export async function convertTextList(
  source: AsyncIterable<Uint8Array | string>,
  path: string,
  options: TextListOptions & TextImportPolicy & { maxBytes: number },
): Promise<ConvertedTextList> {
  const maxBytes = positiveInteger('maxBytes', options.maxBytes);
  const maxBadRatio = checkMaxBadRatio(options.maxBadRatio);
  const parser = new TextListParser(options);
  const order = new OrderTracker();
  const writer = await RecipientListWriter.create(path);
  try {
    let uploadBytes = 0;
    const write = async (uins: Uint32Array): Promise<void> => {
      if (uins.length === 0) return;
      order.update(uins);
      await writer.write(uins);
    };
    for await (const piece of source) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      uploadBytes += chunk.byteLength;
      if (uploadBytes > maxBytes)
        throw new ValidationError(`recipient list upload is larger than the ${maxBytes}-byte limit`, {
          maxBytes,
          bytes: uploadBytes,
        });
      await write(parser.push(chunk));
    }
    await write(parser.end());
    const report = parser.report;
    enforceTextPolicy(report, maxBadRatio);
    const written = await writer.close(order.flags);
    return { written, sorted: order.sorted, unique: order.unique, uploadBytes, report };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
