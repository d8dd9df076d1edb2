import { useEffect, useState } from 'react';
import { api, ApiError, query } from '../api/client';
import type { HistoryEntry, RecipientHistory } from '../api/fate-types';
import { Empty, ErrorBanner, StateBadge } from '../components/bits';
import { useTitle } from '../hooks';
import { ACCOUNT_ID } from '../lib/broadcast-form';
import { DATE_PLACEHOLDER, parseDate } from '../lib/datetime-input';
import { fateInWords, fateTone, uinProblem } from '../lib/fate-words';
import { fmtInt, fmtTime } from '../lib/format';
import { Link, navigate, useLocation } from '../router';
import { useSession } from '../session';

const DAY_MS = 86_400_000;

/**
 * One recipient's broadcasts from one account, newest first, each with its
 * fate in words and a link to the task (GET /api/v1/recipients/:uin/history).
 * The server reads at most 200 tasks a request, so a page may come back
 * short, even empty, with more to read: "Read older broadcasts" goes on.
 * The account and the creation dates live in the URL.
 */
export function RecipientPage({ uin }: { uin: string }) {
  useTitle(`Recipient ${uin}`);
  const { search } = useLocation();
  const session = useSession();
  const account = search.get('account') ?? session.account;
  const from = search.get('from') ?? '';
  const to = search.get('to') ?? '';
  const problem = uinProblem(uin) ?? accountProblem(account) ?? dateProblem(from) ?? dateProblem(to);

  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [scanned, setScanned] = useState(0);
  const [span, setSpan] = useState<{ from: string; to: string } | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);

  const read = async (after: string | null, signal?: AbortSignal) => {
    setBusy(true);
    try {
      const page = await api<RecipientHistory>(
        'GET',
        `/api/v1/recipients/${uin}/history` + query({ accountId: account, ...windowQuery(from, to), cursor: after }),
        undefined,
        signal,
      );
      setEntries((shown) => (after === null ? page.entries : [...shown, ...page.entries]));
      setScanned((n) => (after === null ? page.scanned : n + page.scanned));
      setSpan({ from: page.from, to: page.to });
      setCursor(page.nextCursor);
      setError(null);
    } catch (caught) {
      if ((caught as Error).name !== 'AbortError') setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setEntries([]);
    setCursor(null);
    setSpan(null);
    if (problem !== null) return;
    const controller = new AbortController();
    void read(null, controller.signal);
    return () => controller.abort();
    // `read` is rebuilt each render; what it reads is these.
  }, [uin, account, from, to, problem]);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    navigate(`/recipients/${uin}?${next.toString()}`, { replace: true });
  };

  return (
    <section className="recipient-page">
      <p className="crumbs">
        <Link to="/tasks">Tasks</Link> / {uin}
      </p>
      <h1>Recipient {uin}</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Account
          <input defaultValue={account} onBlur={(e) => setFilter('account', e.target.value.trim())} />
        </label>
        <label>
          Created from
          <input
            placeholder={DATE_PLACEHOLDER}
            defaultValue={from}
            onBlur={(e) => setFilter('from', e.target.value.trim())}
          />
        </label>
        <label>
          to (inclusive)
          <input
            placeholder={DATE_PLACEHOLDER}
            defaultValue={to}
            onBlur={(e) => setFilter('to', e.target.value.trim())}
          />
        </label>
      </form>
      {problem !== null && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      <ErrorBanner error={error} />
      {span !== null && (
        <p className="small muted" data-window>
          Broadcasts of <strong>{account}</strong> created {fmtTime(Date.parse(span.from))} to{' '}
          {fmtTime(Date.parse(span.to))}
          {from === '' && ' (the last 30 days)'}; {fmtInt(scanned)} read so far.
        </p>
      )}
      {entries.length > 0 ? (
        <table className="grid history">
          <thead>
            <tr>
              <th>Created</th>
              <th>Task</th>
              <th>State</th>
              <th>What happened to uin {uin}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.taskId} data-task={entry.taskId}>
                <td>{fmtTime(entry.createdAt)}</td>
                <td>
                  <Link to={`/tasks/${entry.taskId}`}>
                    Task {entry.taskId}
                    {entry.title !== null && ` · ${entry.title}`}
                  </Link>
                </td>
                <td>
                  <StateBadge state={entry.state} />
                </td>
                <td className={`fate ${fateTone(entry)}`} data-fate={entry.fate}>
                  {fateInWords(entry)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        span !== null &&
        !busy && (
          <Empty>
            {cursor === null
              ? `No broadcast of ${account} in this window reached uin ${uin}.`
              : `None of the ${fmtInt(scanned)} broadcasts read so far reached uin ${uin}.`}
          </Empty>
        )
      )}
      {cursor !== null && (
        <button type="button" disabled={busy} onClick={() => void read(cursor)}>
          {busy ? 'Reading…' : 'Read older broadcasts'}
        </button>
      )}
    </section>
  );
}

function accountProblem(account: string): string | null {
  if (account === '') return 'Choose the account whose broadcasts to read (the Account box at the top).';
  return ACCOUNT_ID.test(account) ? null : `"${account}" is not an account id: lower-case letters, digits and _.`;
}

function dateProblem(date: string): string | null {
  if (date === '') return null;
  const parsed = parseDate(date);
  return 'error' in parsed ? parsed.error : null;
}

/** The dates typed, as the API's RFC 3339 instants: from the start of `from`'s day to the start of the day after `to`. */
function windowQuery(from: string, to: string): { from?: string; to?: string } {
  const at = (date: string) => {
    const parsed = parseDate(date);
    return 'at' in parsed ? parsed.at : undefined;
  };
  const start = from === '' ? undefined : at(from);
  const end = to === '' ? undefined : at(to);
  return {
    ...(start === undefined ? {} : { from: new Date(start).toISOString() }),
    ...(end === undefined ? {} : { to: new Date(end + DAY_MS).toISOString() }),
  };
}
