/*
 * Cron expressions for campaigns: the grammar Herald accepts and its parser.
 * Pure: no clock, no I/O. docs/campaigns.md lists the syntax for operators.
 *
 * The grammar is a subset of node-cron 4's (the scheduler the controller
 * uses for its wake-ups), chosen so that every expression accepted here is
 * accepted by node-cron and fires at the same times outside DST changes
 * (checked by packages/controller/src/cron-agreement.test.ts):
 *
 *   expression   := nickname | fields
 *   nickname     := @yearly | @annually | @monthly | @weekly | @daily | @midnight | @hourly
 *   fields       := [second] minute hour day-of-month month day-of-week   (5 or 6, space separated)
 *   field        := item ("," item)*  |  "?" (day-of-month and day-of-week only: same as "*")
 *   item         := "*" ["/" step]  |  value ["-" value ["/" step]]
 *   value        := digits | name (month: jan..dec, january..december; day-of-week: sun..sat, sunday..saturday)
 *
 * Ranges: second 0-59, minute 0-59, hour 0-23, day-of-month 1-31, month
 * 1-12, day-of-week 0-7 (0 and 7 are Sunday). A range whose start is above
 * its end wraps around (hour 22-2 is 22, 23, 0, 1, 2). Names are
 * case-insensitive. Day-of-month and day-of-week must BOTH match (node-cron's
 * rule; classic Vixie cron fires when either does).
 *
 * Not accepted (node-cron has them, Herald does not yet): L, W and # (last
 * day, nearest weekday, nth weekday), a step on a single value ("5/15").
 */
import { ValidationError } from '../errors';

/** The longest expression accepted (the stores keep cron in a 255-character column). */
export const MAX_CRON_CHARS = 255;

/** One parsed expression: for each field, the sorted distinct values it matches. */
export interface CronSchedule {
  readonly second: readonly number[];
  readonly minute: readonly number[];
  readonly hour: readonly number[];
  readonly dayOfMonth: readonly number[];
  readonly month: readonly number[];
  /** 0 (Sunday) .. 6 (Saturday); a 7 in the expression is stored as 0. */
  readonly dayOfWeek: readonly number[];
}

export type CronField = keyof CronSchedule;

// A Map, not an object literal: an expression like '__proto__' must not find Object.prototype.
const NICKNAMES = new Map<string, string>([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTHS_LONG = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAYS_LONG = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface FieldRule {
  readonly field: CronField;
  /** How the field is named in messages. */
  readonly label: string;
  readonly min: number;
  readonly max: number;
  readonly names?: (name: string) => number | undefined;
}

const nameIn = (short: string[], long: string[], first: number) => (name: string) => {
  const lower = name.toLowerCase();
  const at = Math.max(short.indexOf(lower), long.indexOf(lower));
  return at < 0 ? undefined : at + first;
};

const RULES: readonly FieldRule[] = [
  { field: 'second', label: 'second', min: 0, max: 59 },
  { field: 'minute', label: 'minute', min: 0, max: 59 },
  { field: 'hour', label: 'hour', min: 0, max: 23 },
  { field: 'dayOfMonth', label: 'day of month', min: 1, max: 31 },
  { field: 'month', label: 'month', min: 1, max: 12, names: nameIn(MONTHS, MONTHS_LONG, 1) },
  { field: 'dayOfWeek', label: 'day of week', min: 0, max: 7, names: nameIn(DAYS, DAYS_LONG, 0) },
];

/** The most days each month can have (February: 29, in leap years). */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function invalid(message: string, details: Record<string, unknown> = {}): ValidationError {
  return new ValidationError(`cron: ${message}`, { field: 'cron', ...details });
}

/**
 * Parses a cron expression. Throws ValidationError (field 'cron', and
 * `cronField` naming the part at fault when there is one) for anything
 * outside the grammar above, and for an expression that can never fire
 * (day 31 of February only).
 */
export function parseCron(expression: unknown): CronSchedule {
  if (typeof expression !== 'string') throw invalid('must be a string');
  if (expression.length > MAX_CRON_CHARS) throw invalid(`is longer than ${MAX_CRON_CHARS} characters`);
  const nickname = NICKNAMES.get(expression.trim().toLowerCase());
  const bad = nickname === undefined ? /[^A-Za-z0-9*/,\-? ]/.exec(expression) : null;
  if (bad !== null) {
    const hint =
      bad[0] === '#'
        ? " ('#', the nth weekday, is not supported)"
        : bad[0] === '@'
          ? ' (nicknames: @yearly @annually @monthly @weekly @daily @midnight @hourly)'
          : '';
    throw invalid(`character ${JSON.stringify(bad[0])} is not allowed: use digits, names, spaces and * / , - ?${hint}`);
  }
  // Only spaces separate fields (node-cron's rule); trim() would take tabs and other blanks too.
  const resolved = nickname ?? expression.replace(/^ +| +$/g, '');
  if (resolved === '') throw invalid('is empty');
  const parts = resolved.split(/ +/);
  if (parts.length !== 5 && parts.length !== 6)
    throw invalid(`expected 5 or 6 fields (an optional second first), got ${parts.length}`);
  const fields = parts.length === 5 ? ['0', ...parts] : parts;
  const values = RULES.map((rule, i) => parseField(rule, fields[i]!));
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = values as [
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
  ];
  if (!month.some((m) => dayOfMonth.some((d) => d <= MAX_DAYS[m]!))) {
    throw invalid(`day of month ${fields[3]} never occurs in month ${fields[4]}`, {
      cronField: 'dayOfMonth',
      value: fields[3],
    });
  }
  return {
    second,
    minute,
    hour,
    dayOfMonth,
    month,
    dayOfWeek: [...new Set(dayOfWeek.map((d) => d % 7))].sort((a, b) => a - b),
  };
}

function parseField(rule: FieldRule, text: string): number[] {
  const fail = (why: string) =>
    invalid(`${rule.label} field '${text}': ${why}`, { cronField: rule.field, value: text });
  if (text === '?') {
    if (rule.field !== 'dayOfMonth' && rule.field !== 'dayOfWeek')
      throw fail("'?' is allowed only for day of month and day of week");
    return range(rule.min, rule.field === 'dayOfWeek' ? 6 : rule.max);
  }
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^(?:(\*)|([A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?)(?:\/([0-9]+))?$/.exec(item);
    if (match === null) throw fail(`'${item}' is not *, a value, a range a-b, or either with /step`);
    const [, star, from, to, stepText] = match;
    if (star === undefined && to === undefined && stepText !== undefined)
      throw fail(`'${item}': a step needs * or a range (write ${from}-${rule.max}/${stepText})`);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!(step >= 1)) throw fail(`step ${stepText} must be at least 1`);
    const first = star !== undefined ? rule.min : value(rule, from!, fail);
    const last =
      star !== undefined
        ? rule.field === 'dayOfWeek'
          ? 6
          : rule.max
        : to === undefined
          ? first
          : value(rule, to, fail);
    for (const v of stepped(rule, first, last, step)) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

function value(rule: FieldRule, token: string, fail: (why: string) => ValidationError): number {
  if (/^[0-9]+$/.test(token)) {
    const n = Number(token);
    if (n < rule.min || n > rule.max) throw fail(`${token} is outside ${rule.min}-${rule.max}`);
    return n;
  }
  const named = rule.names?.(token);
  if (named === undefined) {
    const hint = /^[lw]$|^[0-9]+w$|^l-/i.test(token) ? ' (L and W are not supported)' : '';
    throw fail(`'${token}' is not a number${rule.names === undefined ? '' : ' or a name'}${hint}`);
  }
  return named;
}

/**
 * The values of first..last by step, wrapping past the field's end when
 * first > last (node-cron's rule: hours 22-2/2 are 22, 0, 2). Day-of-week
 * wraps over 0-6, with 7 read as 0.
 */
function stepped(rule: FieldRule, first: number, last: number, step: number): number[] {
  const out: number[] = [];
  if (first <= last) {
    for (let v = first; v <= last; v += step) out.push(v);
    return out;
  }
  const max = rule.field === 'dayOfWeek' ? 6 : rule.max;
  const size = max - rule.min + 1;
  const span = (((last - first) % size) + size) % size;
  for (let offset = 0; offset <= span; offset += step) {
    let v = first + offset;
    if (v > max) v -= size;
    out.push(v);
  }
  return out;
}

function range(min: number, max: number): number[] {
  const out: number[] = [];
  for (let v = min; v <= max; v++) out.push(v);
  return out;
}
