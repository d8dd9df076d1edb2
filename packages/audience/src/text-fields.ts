/**
 * Byte-level pieces of the text/CSV list grammar (docs/recipient-list-format.md):
 * finding a CSV field in one record and reading a uin from it, without
 * decoding the record to a string. Internal: not exported from the package.
 */

export const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/**
 * What reading a field gave when it is not a uin: negative codes, so a result
 * is either a uin (>= 0) or one of these. Precedence when several apply:
 * not a number, then negative, then fraction, then out of range.
 */
export const NOT_A_NUMBER = -1;
export const NEGATIVE = -2;
export const FRACTION = -3;
export const OUT_OF_RANGE = -4;
export const MISSING = -5;

export function isSpace(byte: number): boolean {
  return byte === SPACE || byte === TAB || byte === CR;
}

/** True when [start, end) holds only spaces, tabs and CRs (or nothing). */
export function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(bytes[i]!)) return false;
  return true;
}

/**
 * Reads `[ws] ['-'] digits ['.' digits] [ws]` from [start, end) as a uin in
 * [0, uinLimit), or a negative code. Leading zeros are fine; an empty field
 * (only spaces) is MISSING; a '-' with digits is NEGATIVE (even "-0"); any
 * decimal point with digits is FRACTION (even "12.0"); anything else is
 * NOT_A_NUMBER.
 */
export function parseUin(bytes: Uint8Array, start: number, end: number, uinLimit: number): number {
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  if (start === end) return MISSING;
  let negative = false;
  if (bytes[start] === MINUS) {
    negative = true;
    start++;
  }
  let digits = 0;
  let dot = false;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = bytes[i]! - ZERO;
    if (digit >= 0 && digit <= 9) {
      digits++;
      // Stops growing once out of range: value stays below 2^36, exact in a double.
      if (!dot && value < uinLimit) value = value * 10 + digit;
    } else if (bytes[i] === DOT && !dot) {
      dot = true;
    } else {
      return NOT_A_NUMBER;
    }
  }
  if (digits === 0) return NOT_A_NUMBER;
  if (negative) return NEGATIVE;
  if (dot) return FRACTION;
  return value >= uinLimit ? OUT_OF_RANGE : value;
}

/**
 * Where field `column` (0-based) of the CSV record [start, end) lies, as
 * [fieldStart, fieldEnd] written into `bounds`, or false when the record has
 * fewer fields. Fields are split on `delimiter` outside double quotes
 * (RFC 4180, "" inside quotes is a quote). For a quoted field the bounds are
 * its content between the quotes; a quoted field with anything but spaces
 * after its closing quote, or one never closed, gives bounds that hold a
 * quote, so it reads as NOT_A_NUMBER.
 */
export function findField(
  bytes: Uint8Array,
  start: number,
  end: number,
  column: number,
  delimiter: number,
  bounds: Int32Array,
): boolean {
  let i = start;
  for (let field = 0; ; field++) {
    let j = i;
    while (j < end && (bytes[j] === SPACE || bytes[j] === TAB)) j++;
    if (j < end && bytes[j] === QUOTE) {
      const close = closingQuote(bytes, j + 1, end);
      let after = close + 1;
      while (after < end && bytes[after] !== delimiter && isSpace(bytes[after]!)) after++;
      const clean = close < end && (after === end || bytes[after] === delimiter);
      if (field === column) {
        // Malformed: hand back the field from its opening quote, which never reads as a number.
        bounds[0] = clean ? j + 1 : j;
        bounds[1] = clean ? close : Math.max(j + 1, Math.min(after, end));
        return true;
      }
      i = nextDelimiter(bytes, after, end, delimiter);
    } else {
      const next = nextDelimiter(bytes, i, end, delimiter);
      if (field === column) {
        bounds[0] = i;
        bounds[1] = next;
        return true;
      }
      i = next;
    }
    if (i >= end) return false;
    i++; // past the delimiter
  }
}

/** Splits a header record into its field texts (quotes removed, "" unescaped, trimmed). */
export function splitHeader(bytes: Uint8Array, start: number, end: number, delimiter: number): string[] {
  const names: string[] = [];
  const bounds = new Int32Array(2);
  const decoder = new TextDecoder();
  for (let column = 0; findField(bytes, start, end, column, delimiter, bounds); column++) {
    names.push(decoder.decode(bytes.subarray(bounds[0], bounds[1])).replace(/""/g, '"').trim());
  }
  return names;
}

/** The index of the quote closing a quoted field whose content starts at `from`, or `end`. */
function closingQuote(bytes: Uint8Array, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (bytes[i] === QUOTE) {
      if (i + 1 < end && bytes[i + 1] === QUOTE) i++;
      else return i;
    }
  }
  return end;
}

function nextDelimiter(bytes: Uint8Array, from: number, end: number, delimiter: number): number {
  for (let i = from; i < end; i++) if (bytes[i] === delimiter) return i;
  return end;
}

/**
 * The index of the next LF at or after `from`, or -1. A plain loop: Buffer's
 * indexOf crosses into C++ on every call, which costs more than scanning the
 * ten-odd bytes of a typical line.
 */
export function nextNewline(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) if (bytes[i] === LF) return i;
  return -1;
}

/** Number of '"' bytes in [start, end): a record ends only at a newline after an even count. */
export function countQuotes(bytes: Uint8Array, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) if (bytes[i] === QUOTE) count++;
  return count;
}
