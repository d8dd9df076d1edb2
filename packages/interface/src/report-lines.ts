import type { Fate, RecipientFate } from '@herald/core/fate';
import type { Task } from '@herald/core/task';

/**
 * How the delivery report writes a row, in two halves: the head (uin,
 * position, duplicate copies) and the tail (the fate). A run of rows sharing
 * a fate renders the tail once. The head is its parts around the numbers,
 * `before + uin + afterUin + position [+ beforeCopies + copies] + afterHead`
 * (copies only when there are some and the form shows them; a row outside
 * the filtered list has `noPosition` for `afterUin + position`), so the
 * report can write it as bytes; `line(row)` is exactly `head(...) +
 * tail(fate)` for any row (recipient-report.test.ts compares the report with
 * `line` of every per-recipient answer).
 */
export interface ReportLines {
  /** The body's first bytes (the CSV header). */
  readonly start: string;
  readonly head: HeadParts;
  line(row: RecipientFate): string;
  tail(fate: TailFate): string;
}

/** What a tail shows: the fate and, for a kept row of an A/B task, its variant (report-variants.ts). */
export type TailFate = Fate & { variant?: string };

export interface HeadParts {
  before: string;
  afterUin: string;
  /** What stands for `afterUin + position` in the head of a row outside the filtered list. */
  noPosition: string;
  /** Undefined: the form has no duplicate copies (CSV). */
  beforeCopies: string | undefined;
  afterHead: string;
}

/** A row's head as text; `position` undefined: a row outside the filtered list. */
export function headText(parts: HeadParts, uin: number, position: number | undefined, copies: number): string {
  const shown = copies > 0 && parts.beforeCopies !== undefined ? `${parts.beforeCopies}${copies}` : '';
  const at = position === undefined ? parts.noPosition : `${parts.afterUin}${position}`;
  return `${parts.before}${uin}${at}${shown}${parts.afterHead}`;
}

/** The CSV header; docs/api.md describes each column. */
export const REPORT_CSV_HEADER = 'uin,position,fate,detail,at,executor,then_at\n';

/** CSV: times RFC 3339 (UTC), an absent value empty (duplicate copies have no column). */
export const CSV_LINES: ReportLines = {
  start: REPORT_CSV_HEADER,
  head: { before: '', afterUin: ',', noPosition: ',', beforeCopies: undefined, afterHead: '' },
  line: (row) => `${row.uin},${row.position === undefined ? '' : row.position}${csvTail(row)}`,
  tail: csvTail,
};

/** An A/B task's CSV header: the variant each row was given is its last column. */
export const VARIANT_REPORT_CSV_HEADER = 'uin,position,fate,detail,at,executor,then_at,variant\n';

/**
 * CSV of an A/B task: CSV_LINES's rows with their variant last, empty for a
 * row without one (outside the filtered list). A variant's name is of
 * [a-z0-9_-] (docs/rollouts.md), so it is written as it is.
 */
export const VARIANT_CSV_LINES: ReportLines = {
  start: VARIANT_REPORT_CSV_HEADER,
  head: CSV_LINES.head,
  line: (row) => `${row.uin},${row.position === undefined ? '' : row.position}${csvCells(row)},${row.variant ?? ''}\n`,
  tail: (fate) => `${csvCells(fate)},${fate.variant ?? ''}\n`,
};

/** The CSV lines of a task's report: only an A/B task's have the variant column, the others' stay as they were. */
export function csvLinesOf(task: Pick<Task, 'rollout'>): ReportLines {
  return task.rollout?.variants === undefined ? CSV_LINES : VARIANT_CSV_LINES;
}

/**
 * NDJSON: the per-recipient answer's object with the task's id first, one a
 * line (an A/B task's kept rows with their variant last, as the answer has it).
 */
export function ndjsonLines(taskId: number): ReportLines {
  return {
    start: '',
    head: {
      before: `{"taskId":${taskId},"uin":`,
      afterUin: ',"position":',
      noPosition: '',
      beforeCopies: ',"duplicateCopiesRemoved":',
      afterHead: ',',
    },
    line: (row) => JSON.stringify({ taskId, ...row }) + '\n',
    // The fate's own object without its opening brace: it always has a `fate` key, so never `{}`.
    tail: (fate) => JSON.stringify(fate).slice(1) + '\n',
  };
}

/** `,fate,detail,at,executor,then_at` and the line break. */
function csvTail(fate: Fate): string {
  return `${csvCells(fate)}\n`;
}

/**
 * `,fate,detail,at,executor,then_at`. Only detail and executor may hold a
 * comma or quote: the fate is a fixed word and the times are RFC 3339 or
 * empty, so they are written as they are (a row with a login outcome renders
 * its own tail, so this runs for a few percent of the rows).
 */
function csvCells(fate: Fate): string {
  const [detail, at, executor, thenAt] = rest(fate);
  return `,${fate.fate},${csvCell(detail)},${at},${csvCell(executor)},${thenAt}`;
}

/** detail, at, executor, then_at. */
function rest(row: Fate): [string, string, string, string] {
  switch (row.fate) {
    case 'not_in_audience':
      return ['', '', '', ''];
    case 'removed':
      return [row.link, '', '', ''];
    case 'delivered_online':
      return ['', iso(row.at), row.executor, ''];
    case 'rejected':
      return [row.reason, iso(row.at), row.executor, ''];
    case 'queued_offline': {
      const { then } = row;
      const detail =
        then.outcome === 'dropped_at_login'
          ? `dropped_at_login: ${then.why}`
          : then.outcome === 'unknown'
            ? `unknown: ${then.reason}`
            : then.outcome;
      const thenAt = then.outcome === 'waiting' ? then.until : then.outcome === 'unknown' ? undefined : then.at;
      return [detail, iso(row.at), row.executor, thenAt === undefined ? '' : iso(thenAt)];
    }
    case 'not_reached':
      return [`${row.taskState}: ${row.why}`, '', '', ''];
    case 'unknown':
      return [row.reason, '', '', ''];
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** RFC 4180: a cell holding a comma, quote or line break is quoted, its quotes doubled. */
function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
