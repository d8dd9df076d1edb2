/**
 * Splits a migration file into statements the way the `mysql` command-line
 * client does, so the same file runs through `mysql db < file.sql` and through
 * `migrate` (which sends one statement at a time and never needs the
 * connection's multi-statement mode):
 *
 *   file      = { line }
 *   DELIMITER = a line "DELIMITER <token>": statements now end with <token>
 *               (default ";"); the line itself is not sent
 *   statement = text up to the current delimiter, outside quotes and comments
 *   quotes    = '...' and "..." (backslash escapes, doubled quote), `...`
 *   comments  = "-- " or "#" to the end of the line (dropped), /* ... *\/ (kept)
 *
 * Statements are trimmed; empty ones (comments only) are left out.
 */
export function splitSql(text: string): string[] {
  const statements: string[] = [];
  let delimiter = ';';
  let current = '';
  let i = 0;
  let lineStart = true;

  const flush = () => {
    const statement = current.trim();
    if (statement !== '') statements.push(statement);
    current = '';
  };

  while (i < text.length) {
    if (lineStart) {
      const end = text.indexOf('\n', i);
      const line = text.slice(i, end === -1 ? text.length : end);
      const match = /^\s*DELIMITER\s+(\S+)\s*$/i.exec(line);
      if (match !== null && current.trim() === '') {
        delimiter = match[1]!;
        i = end === -1 ? text.length : end + 1;
        continue;
      }
      lineStart = false;
    }
    const ch = text[i]!;
    if (ch === '\n') {
      current += ch;
      i++;
      lineStart = true;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = quoteEnd(text, i);
      current += text.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '#' || (ch === '-' && text[i + 1] === '-' && (i + 2 >= text.length || /\s/.test(text[i + 2]!)))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      current += text.slice(i, stop);
      i = stop;
      continue;
    }
    if (text.startsWith(delimiter, i)) {
      flush();
      i += delimiter.length;
      continue;
    }
    current += ch;
    i++;
  }
  flush();
  return statements;
}

/** Index just past the quoted string, identifier or literal opening at `start`. */
function quoteEnd(text: string, start: number): number {
  const quote = text[start]!;
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && quote !== '`') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return text.length;
}
