/**
 * A streaming parser for text and CSV recipient lists (grammar in
 * docs/recipient-list-format.md): bytes in, uins out, every line that is not
 * a uin counted by reason. Memory is bounded by the options, not by the
 * input: a record split across chunks is carried in one buffer of
 * `maxLineBytes`, and a longer one is skipped to its end and counted
 * `too_long` instead of buffered.
 *
 * Duplicates are kept: the filter chain's dedupe removes and counts them.
 */
import { ValidationError } from '@herald/core';
import { checkUinLimit } from './decoding';
import { positiveInteger } from './fs-util';
import {
  countQuotes,
  findField,
  FRACTION,
  isBlank,
  MISSING,
  NEGATIVE,
  nextNewline,
  NOT_A_NUMBER,
  OUT_OF_RANGE,
  parseUin,
  splitHeader,
} from './text-fields';

export const BAD_LINE_REASONS = [
  'not_a_number',
  'negative',
  'fraction',
  'out_of_range',
  'too_long',
  'missing_column',
] as const;
export type BadLineReason = (typeof BAD_LINE_REASONS)[number];

export interface TextListOptions {
  /** Uins must lie in [0, uinLimit): 2^uinSpaceBits, at most 2^32. */
  uinLimit: number;
  /** 'lines': one uin per line; 'csv': the uin is one field of each record. @defaultValue 'lines' */
  format?: 'lines' | 'csv';
  /** CSV: the uin's column, a 1-based number or a header name (needs a header). @defaultValue 1 */
  column?: number | string;
  /**
   * 'present': the first non-blank line is a header; 'absent': it is data;
   * 'auto': it is a header when it holds the named column, or when (numbered
   * column) its uin field is not a number at all.
   * @defaultValue 'auto'
   */
  header?: 'auto' | 'present' | 'absent';
  /** CSV field separator: one of `,` `;` `|` and tab. @defaultValue ',' */
  delimiter?: string;
  /** A line (record) longer than this, newline excluded, is `too_long`; at most 1 MiB. @defaultValue 4096 */
  maxLineBytes?: number;
  /** How many bad lines the report names (line number and reason). @defaultValue 10 */
  badLineSamples?: number;
}

export interface BadLine {
  /** 1-based physical line where the record starts. */
  line: number;
  reason: BadLineReason;
}

export interface TextListReport {
  format: 'lines' | 'csv';
  /** Physical lines read; a last line without a newline counts. */
  lines: number;
  /** Uins emitted (duplicates included). */
  valid: number;
  /** Lines of nothing but spaces, tabs and CR, skipped. */
  blank: number;
  /** The header line, when one was found or declared. */
  header: { line: number; fields: string[] } | null;
  /** The uin's column, 1-based (always 1 for 'lines'). */
  column: number;
  /** Bad lines by reason; `total` is their sum. */
  bad: Record<BadLineReason, number> & { total: number };
  /** The first `badLineSamples` bad lines. */
  firstBad: BadLine[];
}

const DELIMITERS = new Set([',', ';', '|', '\t']);
const DEFAULT_MAX_LINE_BYTES = 4096;
/** The carry buffer is this big at most, whatever the caller asks. */
const MAX_LINE_BYTES_CAP = 1 << 20;
const DEFAULT_SAMPLES = 10;
const BOM = [0xef, 0xbb, 0xbf];

const REASON_OF_CODE: Record<number, BadLineReason> = {
  [NOT_A_NUMBER]: 'not_a_number',
  [NEGATIVE]: 'negative',
  [FRACTION]: 'fraction',
  [OUT_OF_RANGE]: 'out_of_range',
  [MISSING]: 'missing_column',
};

/**
 * @example
 *   const parser = new TextListParser({ uinLimit: 2 ** 32, format: 'csv', column: 'uin' });
 *   for await (const chunk of stream) await writer.write(parser.push(chunk));
 *   await writer.write(parser.end());
 *   const { valid, bad } = parser.report;
 *
 * `push` and `end` return a view of an internal buffer, valid until the next call.
 */
export class TextListParser {
  private readonly uinLimit: number;
  private readonly csv: boolean;
  private readonly delimiter: number;
  private readonly maxLineBytes: number;
  private readonly samples: number;
  private readonly headerMode: 'auto' | 'present' | 'absent';
  private readonly columnName: string | undefined;
  /** 0-based; -1 while a named column waits for its header. */
  private column: number;
  private headerPending: boolean;

  private readonly carry: Buffer;
  private carried = 0;
  private recordBytes = 0;
  private tooLong = false;
  private quotes = 0;
  private recordLine = 1;
  private newlinesInRecord = 0;
  private atStreamStart = true;
  private ended = false;

  private out = new Uint32Array(1024);
  private emitted = 0;
  private readonly bounds = new Int32Array(2);
  private readonly counts: TextListReport;

  constructor(options: TextListOptions) {
    this.uinLimit = checkUinLimit(options.uinLimit);
    const format = options.format ?? 'lines';
    if (format !== 'lines' && format !== 'csv')
      throw new ValidationError(`format must be 'lines' or 'csv', got '${String(format)}'`, { option: 'format' });
    this.csv = format === 'csv';
    const delimiter = options.delimiter ?? ',';
    if (!DELIMITERS.has(delimiter))
      throw new ValidationError(`delimiter must be one of , ; | or tab, got '${delimiter}'`, { option: 'delimiter' });
    this.delimiter = delimiter.charCodeAt(0);
    this.maxLineBytes = positiveInteger('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    if (this.maxLineBytes > MAX_LINE_BYTES_CAP)
      throw new ValidationError(`maxLineBytes must be at most ${MAX_LINE_BYTES_CAP}`, { option: 'maxLineBytes' });
    this.samples = options.badLineSamples ?? DEFAULT_SAMPLES;
    if (!Number.isSafeInteger(this.samples) || this.samples < 0)
      throw new ValidationError(`badLineSamples must be a non-negative integer, got ${this.samples}`, {
        option: 'badLineSamples',
      });
    this.headerMode = options.header ?? 'auto';
    if (!['auto', 'present', 'absent'].includes(this.headerMode)) {
      throw new ValidationError(`header must be 'auto', 'present' or 'absent', got '${String(this.headerMode)}'`, {
        option: 'header',
      });
    }
    const column = options.column ?? 1;
    if (typeof column === 'string') {
      if (!this.csv) throw new ValidationError('a named column needs format csv', { option: 'column' });
      if (this.headerMode === 'absent')
        throw new ValidationError(`column '${column}' is a name, but the header is declared absent`, {
          option: 'column',
        });
      if (column.trim() === '') throw new ValidationError('column name is empty', { option: 'column' });
      this.columnName = column.trim();
      this.column = -1;
    } else {
      if (!Number.isSafeInteger(column) || column < 1)
        throw new ValidationError(`column must be a name or a number from 1, got ${column}`, { option: 'column' });
      if (!this.csv && column !== 1)
        throw new ValidationError('a column other than 1 needs format csv', { option: 'column' });
      this.column = column - 1;
    }
    this.headerPending = this.headerMode !== 'absent';
    this.carry = Buffer.allocUnsafe(this.maxLineBytes);
    const bad = Object.fromEntries(BAD_LINE_REASONS.map((reason) => [reason, 0])) as Record<BadLineReason, number>;
    this.counts = {
      format,
      lines: 0,
      valid: 0,
      blank: 0,
      header: null,
      column: this.column + 1,
      bad: { ...bad, total: 0 },
      firstBad: [],
    };
  }

  /** Parses a chunk; returns the uins of the records it completed. */
  push(chunk: Uint8Array): Uint32Array {
    if (this.ended) throw new ValidationError('TextListParser: push after end');
    this.emitted = 0;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    while (at < bytes.length) {
      const newline = nextNewline(bytes, at);
      if (newline < 0) {
        if (this.csv) this.quotes += countQuotes(bytes, at, bytes.length);
        this.hold(bytes, at, bytes.length);
        break;
      }
      if (this.csv) this.quotes += countQuotes(bytes, at, newline);
      if (this.csv && this.quotes % 2 === 1) {
        // A newline inside a quoted field belongs to the record.
        this.hold(bytes, at, newline + 1);
        this.newlinesInRecord++;
      } else if (this.carried > 0 || this.tooLong) {
        this.hold(bytes, at, newline);
        this.finishRecord(this.carry, 0, this.carried);
      } else {
        this.recordBytes = newline - at;
        this.tooLong = this.recordBytes > this.maxLineBytes;
        this.finishRecord(bytes, at, newline);
      }
      at = newline + 1;
    }
    return this.out.subarray(0, this.emitted);
  }

  /** Parses what is left (a last line without a newline); returns its uin, if any. */
  end(): Uint32Array {
    if (this.ended) throw new ValidationError('TextListParser: end called twice');
    this.emitted = 0;
    if (this.recordBytes > 0 || this.tooLong) {
      if (this.csv && this.quotes % 2 === 1 && !this.tooLong) {
        this.counts.lines += this.newlinesInRecord + 1;
        this.markBad('not_a_number', this.recordLine); // a quote never closed
      } else {
        this.finishRecord(this.carry, 0, this.carried);
      }
    }
    this.ended = true;
    return this.out.subarray(0, this.emitted);
  }

  /** Counts so far; complete after `end`. */
  get report(): TextListReport {
    return {
      ...this.counts,
      bad: { ...this.counts.bad },
      firstBad: [...this.counts.firstBad],
      column: this.column + 1,
    };
  }

  /**
   * Keeps [start, end) of a record that goes on in a later chunk. Past
   * maxLineBytes (a CSV record's quoted newlines count) the record is only
   * measured, never stored.
   */
  private hold(bytes: Buffer, start: number, end: number): void {
    this.recordBytes += end - start;
    if (this.tooLong) return;
    if (this.recordBytes > this.maxLineBytes) {
      this.tooLong = true;
      this.carried = 0;
      return;
    }
    bytes.copy(this.carry, this.carried, start, end);
    this.carried += end - start;
  }

  private finishRecord(bytes: Uint8Array, start: number, end: number): void {
    const line = this.recordLine;
    this.counts.lines += this.newlinesInRecord + 1;
    this.recordLine += this.newlinesInRecord + 1;
    const tooLong = this.tooLong;
    this.carried = 0;
    this.recordBytes = 0;
    this.tooLong = false;
    this.quotes = 0;
    this.newlinesInRecord = 0;
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (end - start >= 3 && bytes[start] === BOM[0] && bytes[start + 1] === BOM[1] && bytes[start + 2] === BOM[2])
        start += 3;
    }
    if (tooLong) {
      if (this.headerPending && (this.headerMode === 'present' || this.columnName !== undefined)) {
        throw new ValidationError(`the header line (line ${line}) is longer than ${this.maxLineBytes} bytes`, {
          line,
          maxLineBytes: this.maxLineBytes,
        });
      }
      this.headerPending = false;
      this.markBad('too_long', line);
      return;
    }
    if (isBlank(bytes, start, end)) {
      this.counts.blank++;
      return;
    }
    const code = this.column < 0 ? NOT_A_NUMBER : this.read(bytes, start, end);
    if (this.headerPending) {
      this.headerPending = false;
      if (this.isHeader(bytes, start, end, code, line)) return;
    }
    if (code >= 0) this.emit(code);
    else this.markBad(REASON_OF_CODE[code]!, line);
  }

  private read(bytes: Uint8Array, start: number, end: number): number {
    if (!this.csv) return parseUin(bytes, start, end, this.uinLimit);
    if (!findField(bytes, start, end, this.column, this.delimiter, this.bounds)) return MISSING;
    return parseUin(bytes, this.bounds[0]!, this.bounds[1]!, this.uinLimit);
  }

  /** Decides whether the first non-blank record is the header, and resolves a named column from it. */
  private isHeader(bytes: Uint8Array, start: number, end: number, code: number, line: number): boolean {
    const fields = this.csv
      ? splitHeader(bytes, start, end, this.delimiter)
      : [new TextDecoder().decode(bytes.subarray(start, end)).trim()];
    if (this.columnName !== undefined) {
      const wanted = this.columnName.toLowerCase();
      const index = fields.findIndex((field) => field.toLowerCase() === wanted);
      if (index < 0) {
        throw new ValidationError(`column '${this.columnName}' is not in the header (line ${line})`, {
          column: this.columnName,
          header: fields.slice(0, 50),
          line,
        });
      }
      this.column = index;
    } else if (this.headerMode === 'auto' && code !== NOT_A_NUMBER) {
      return false;
    }
    this.counts.header = { line, fields: fields.slice(0, 50) };
    return true;
  }

  private emit(uin: number): void {
    if (this.emitted === this.out.length) {
      const grown = new Uint32Array(this.out.length * 2);
      grown.set(this.out);
      this.out = grown;
    }
    this.out[this.emitted++] = uin;
    this.counts.valid++;
  }

  private markBad(reason: BadLineReason, line: number): void {
    this.counts.bad[reason]++;
    this.counts.bad.total++;
    if (this.counts.firstBad.length < this.samples) this.counts.firstBad.push({ line, reason });
  }
}
