/**
 * Dates and times as the operator types them: ISO order and a 24-hour
 * clock, whatever the browser's locale (its own date pickers are 12-hour
 * mm/dd/yyyy in en-US). Read in the browser's time zone, as the console
 * shows every time (lib/format.ts fmtTime).
 */

export const DATE_TIME_PLACEHOLDER = 'YYYY-MM-DD HH:MM';
export const DATE_PLACEHOLDER = 'YYYY-MM-DD';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export type Parsed = { at: number } | { error: string };

/**
 * "2026-12-01 09:30" (or with a T, or seconds) as epoch ms in the
 * browser's zone; an error in the operator's words when it is not one.
 */
export function parseDateTime(text: string): Parsed {
  const m = DATE_TIME.exec(text.trim());
  if (m === null) return { error: 'Write it as YYYY-MM-DD HH:MM, on a 24-hour clock (e.g. 2026-12-01 09:30).' };
  const [year, month, day, hour, minute, second] = m.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59 || second > 59)
    return { error: `No such time: ${m[4]}:${m[5]} (hours 00 to 23, minutes 00 to 59).` };
  const at = new Date(year, month - 1, day, hour, minute, second);
  if (at.getFullYear() !== year || at.getMonth() !== month - 1 || at.getDate() !== day)
    return { error: `No such date: ${m[1]}-${m[2]}-${m[3]}.` };
  return { at: at.getTime() };
}

/** "2026-12-01" as the start of that day in the browser's zone; an error in the operator's words when it is not one. */
export function parseDate(text: string): Parsed {
  const m = DATE.exec(text.trim());
  if (m === null) return { error: 'A date as YYYY-MM-DD (e.g. 2026-12-01).' };
  const parsed = parseDateTime(`${m[0]} 00:00`);
  return 'error' in parsed ? parsed : { at: parsed.at };
}

/** Epoch ms as the text the inputs take: 2026-12-01 09:30 in the browser's zone. */
export function toDateTimeText(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
