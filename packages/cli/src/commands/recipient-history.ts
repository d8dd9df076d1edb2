import type { HeraldOptions } from '@herald/core/config';
import type { RecipientFate } from '@herald/core/fate';
import { ValidationError } from '@herald/core';
import { parseDateTime } from '@herald/core/time';
import { api } from '../http-client';
import { fateSentence, targetOf } from './recipient';

export interface RecipientHistoryArgs {
  uin: string;
  /** --account: whose broadcasts. */
  account: string | undefined;
  /** --from, --to: RFC 3339 with an offset; the API's defaults (the last 30 days) without. */
  from?: string;
  to?: string;
  /** --limit: entries to print at most. */
  limit: number;
  /** --cursor: go on where an earlier run stopped. */
  cursor?: string;
  config: HeraldOptions;
  api?: string;
  token?: string;
  json?: boolean;
}

export type HistoryEntry = RecipientFate & { taskId: number; title: string | null; createdAt: number; state: string };

interface HistoryPage {
  uin: number;
  accountId: string;
  from: string;
  to: string;
  entries: HistoryEntry[];
  scanned: number;
  nextCursor: string | null;
}

/**
 * `herald recipient <uin> --account ID [--from --to]`: the user's broadcasts
 * from the account, newest first, from GET /api/v1/recipients/:uin/history
 * (docs/recipient-truth.md, "A recipient's history"). Reads pages until it
 * has --limit entries or the window is read: a page may hold none and still
 * go on (the API bounds the tasks a request reads). What the CLI can judge
 * alone (a missing --account, a date that is not one) it refuses before
 * calling; the rest is the API's error, printed as is.
 */
export async function runRecipientHistory(
  args: RecipientHistoryArgs,
  write = (text: string) => process.stdout.write(text),
): Promise<{ entries: HistoryEntry[]; nextCursor: string | null }> {
  if (args.account === undefined || args.account === '')
    throw new ValidationError('give --account <id> (whose broadcasts), or --task <id> for one task', {
      field: '--account',
    });
  if (args.from !== undefined) parseDateTime(args.from, '--from');
  if (args.to !== undefined) parseDateTime(args.to, '--to');
  const target = targetOf(args);
  const entries: HistoryEntry[] = [];
  let cursor = args.cursor ?? null;
  let page: HistoryPage;
  do {
    const query = new URLSearchParams({ accountId: args.account, limit: String(args.limit - entries.length) });
    if (args.from !== undefined) query.set('from', args.from);
    if (args.to !== undefined) query.set('to', args.to);
    if (cursor !== null) query.set('cursor', cursor);
    page = await api<HistoryPage>(
      target,
      'GET',
      `/api/v1/recipients/${encodeURIComponent(args.uin)}/history?${query.toString()}`,
    );
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor !== null && entries.length < args.limit);
  const result = { entries, nextCursor: cursor };
  if (args.json === true) write(`${JSON.stringify({ uin: page.uin, accountId: page.accountId, ...result })}\n`);
  else write(describeHistory(page, result));
  return result;
}

/** One line a broadcast, newest first, then where to go on when the window is not read through. */
export function describeHistory(
  window: { uin: number; accountId: string; from: string; to: string },
  { entries, nextCursor }: { entries: HistoryEntry[]; nextCursor: string | null },
): string {
  const head = `uin ${window.uin}, account ${window.accountId}, tasks created ${window.from} to ${window.to}:\n`;
  const lines = entries.map((entry) => `  ${historyLine(entry)}\n`);
  const none = entries.length === 0 ? '  no broadcast of this account reached this uin\n' : '';
  const more = nextCursor === null ? '' : `more: run again with --cursor ${nextCursor}\n`;
  return head + lines.join('') + none + more;
}

export function historyLine(entry: HistoryEntry): string {
  const title = entry.title === null ? '' : ` "${entry.title}"`;
  return `${new Date(entry.createdAt).toISOString()} task ${entry.taskId}${title} (${entry.state}): ${fateSentence(entry)}`;
}
