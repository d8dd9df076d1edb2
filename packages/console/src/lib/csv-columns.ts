/**
 * What the console can tell of a CSV from its first line before uploading
 * it: the field separator, whether that line is a header, and which column
 * most likely holds the recipient ids. The server does the real parsing;
 * this only chooses the `column` and `delimiter` it is asked to use, and the
 * operator can pick another column.
 */
export interface CsvShape {
  /** One of , ; | and tab: the one the first line holds most of (',' when none). */
  delimiter: string;
  /** The first line's fields when it is a header (a field that is not a number), else null. */
  header: string[] | null;
  /** How many fields the first line has. */
  columns: number;
  /** 1-based: the column named `uin` (any case), else the first. */
  suggested: number;
}

const DELIMITERS = [',', ';', '|', '\t'];

/** The first non-blank line of a text. */
export function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .find((line) => line.trim() !== '')
      ?.replace(/^\uFEFF/, '') ?? ''
  );
}

export function sniffCsv(text: string): CsvShape {
  const line = firstLine(text);
  const count = (d: string) => line.split(d).length - 1;
  const delimiter = DELIMITERS.reduce((best, d) => (count(d) > count(best) ? d : best), ',');
  const fields = line.split(delimiter).map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
  const header = fields.some((f) => !/^[0-9]+$/.test(f)) ? fields : null;
  const named = header?.findIndex((f) => f.toLowerCase() === 'uin') ?? -1;
  return { delimiter, header, columns: fields.length, suggested: named >= 0 ? named + 1 : 1 };
}

/** The upload's query parameters for a column choice: by name under a header, by number otherwise. */
export function csvParams(shape: CsvShape, column: number): Record<string, string> {
  const name = shape.header?.[column - 1];
  return {
    column: name !== undefined && name !== '' ? name : String(column),
    ...(shape.header === null ? { header: 'absent' } : { header: 'present' }),
    delimiter: shape.delimiter === '\t' ? 'tab' : shape.delimiter,
  };
}
