/**
 * A LIKE pattern for "contains `text`": `%`, `_` and `\` in the text are
 * escaped (with `\`, LIKE's default escape character) so they match only
 * themselves. Bind it as a parameter; never splice it into SQL.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
