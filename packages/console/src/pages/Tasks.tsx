import { useEffect, useRef, useState } from 'react';
import { api, query } from '../api/client';
import { TASK_STATES, TERMINAL_STATES, type Task, type TaskPage } from '../api/types';
import { Bar, Empty, ErrorBanner, StateBadge } from '../components/bits';
import { BulkBar } from '../components/BulkBar';
import { SearchBox } from '../components/SearchBox';
import { usePoll, useTitle } from '../hooks';
import { fmtInt, fmtTime } from '../lib/format';
import { ACCOUNT_ID } from '../lib/broadcast-form';
import { DATE_PLACEHOLDER, parseDate } from '../lib/datetime-input';
import { noMatchText } from '../lib/task-search';
import { taskRowProgress } from '../lib/stages';
import { Link, navigate, useLocation } from '../router';
import { useSession } from '../session';

const PAGE_SIZES = [25, 50, 100, 200];

/**
 * The task list: newest first, filtered by state, account and creation
 * date, paged on the server by a keyset cursor, so a page costs the same
 * however many tasks exist. Filters and the cursor live in the URL, so a view can be shared.
 * The account is the top bar's (AccountPicker), the one selector: see useLinkedAccount.
 */
export function Tasks() {
  useTitle('Tasks');
  const { search } = useLocation();
  const { account, refused, pending } = useLinkedAccount(search);
  const everyAccount = useSession().me.role === 'admin' ? 'all accounts' : 'all your accounts';
  const filters = {
    state: search.get('state') ?? '',
    accountId: account,
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    limit: Number(search.get('limit') ?? 50),
    cursor: search.get('cursor') ?? '',
    q: search.get('q') ?? '',
  };
  // A creation date that is not YYYY-MM-DD is said here and never asked for (typed: the browser's own picker is mm/dd/yyyy in en-US).
  const fromError = dateError(filters.from);
  const toError = dateError(filters.to);
  const filtersBad = pending || fromError !== undefined || toError !== undefined;
  // Cursors of the pages before this one, for "Newer"; a new filter starts over.
  const [back, setBack] = useState<string[]>([]);
  // Ids ticked for a bulk command: of the page shown only (another page or filter starts with none).
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  useEffect(() => {
    setBack([]);
    setSelected(new Set());
  }, [account]);

  const { data, error, loading, reload } = usePoll<TaskPage>(
    (signal) =>
      filtersBad
        ? Promise.resolve({ tasks: [], nextCursor: null })
        : api(
            'GET',
            '/api/v1/tasks' +
              query({
                order: 'desc',
                state: filters.state,
                accountId: filters.accountId,
                createdFrom: dayStart(filters.from),
                createdBefore: dayStart(filters.to, 1),
                // The server searches title, message and id (a search page may be short: Older goes on).
                q: filters.q,
                limit: filters.limit,
                cursor: filters.cursor,
              }),
            undefined,
            signal,
          ),
    [filters.state, filters.accountId, filters.from, filters.to, filters.limit, filters.cursor, filters.q],
    5000,
  );

  const shown = data?.tasks ?? [];
  const selectedTasks = shown.filter((t) => selected.has(t.id));
  const toggle = (id: number, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    next.delete('cursor');
    setBack([]);
    setSelected(new Set());
    navigate('/tasks?' + next.toString(), { replace: true });
  };
  const goTo = (cursor: string) => {
    const next = new URLSearchParams(search);
    if (cursor === '') next.delete('cursor');
    else next.set('cursor', cursor);
    setSelected(new Set());
    navigate('/tasks?' + next.toString());
  };

  return (
    <section>
      <div className="page-head">
        <h1>Tasks</h1>
        <Link to="/new" className="button primary">
          New broadcast
        </Link>
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <SearchBox
            label="Search tasks"
            placeholder="id, title or message"
            value={filters.q}
            onSearch={(q) => setFilter('q', q)}
          />
        </label>
        <label>
          State
          <select aria-label="State filter" value={filters.state} onChange={(e) => setFilter('state', e.target.value)}>
            <option value="">any</option>
            {TASK_STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Created from
          <DateFilter name="from" label="Created from" value={filters.from} error={fromError} onChange={setFilter} />
        </label>
        <label>
          to
          <DateFilter name="to" label="Created to" value={filters.to} error={toError} onChange={setFilter} />
        </label>
        <label>
          Rows
          <select value={filters.limit} onChange={(e) => setFilter('limit', e.target.value)}>
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        {loading && <span className="muted small">loading…</span>}
      </form>
      <p className="small muted" data-account-scope>
        {filters.accountId === '' ? capitalise(everyAccount) : `Account ${filters.accountId}`} (the account picker in
        the top bar)
      </p>
      {refused !== null && (
        <p className="field-error" role="alert" data-field="accountFilter">
          The link asked for account “{refused}”, which is{' '}
          {ACCOUNT_ID.test(refused) ? 'not one of yours' : 'not an account id (1 to 64 lowercase letters, digits or _)'}
          : showing {filters.accountId === '' ? everyAccount : `account ${filters.accountId}`} instead.
        </p>
      )}
      <ErrorBanner error={error} />
      <BulkBar selected={selectedTasks} onDone={reload} onClear={() => setSelected(new Set())} />
      {filtersBad ? null : data && shown.length === 0 ? (
        <Empty>
          {filters.q !== ''
            ? noMatchText(
                'task',
                filters.q,
                data.nextCursor != null,
                filters.state !== '' || filters.from !== '' || filters.to !== '',
              )
            : 'No task matches these filters.'}
        </Empty>
      ) : (
        <table className="grid tasks">
          <thead>
            <tr>
              <th className="select">
                <SelectAll
                  total={shown.length}
                  ticked={selectedTasks.length}
                  onChange={(on) => setSelected(new Set(on ? shown.map((t) => t.id) : []))}
                />
              </th>
              <th className="num">Id</th>
              <th>Account</th>
              <th>State</th>
              <th>Message</th>
              <th>Progress</th>
              <th className="num">Recipients</th>
              <th>Priority</th>
              <th>Send at</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((task) => (
              <TaskRow
                key={task.id}
                task={task}
                selected={selected.has(task.id)}
                onSelect={(on) => toggle(task.id, on)}
              />
            ))}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button
          disabled={filters.cursor === ''}
          onClick={() => {
            const previous = back[back.length - 1] ?? '';
            setBack(back.slice(0, -1));
            goTo(previous);
          }}
        >
          ← Newer
        </button>
        <span className="muted small">
          {filters.cursor === '' ? 'newest first' : back.length > 0 ? `page ${back.length + 1}` : 'older tasks'}
        </span>
        <button
          disabled={data?.nextCursor == null}
          onClick={() => {
            setBack([...back, filters.cursor]);
            goTo(String(data!.nextCursor));
          }}
        >
          Older →
        </button>
      </div>
    </section>
  );
}

/**
 * The list's account is the session's, which the top bar's picker sets. A
 * link's `account` parameter (a shared view; `account=` for all) is applied
 * to it when this token may act for it; after that the picker and the URL
 * follow each other, the one the operator last moved winning. A link to an
 * account the token may not use is said, and the session's account shown.
 */
function useLinkedAccount(search: URLSearchParams): { account: string; refused: string | null; pending: boolean } {
  const { me, openServer, account, setAccount } = useSession();
  const linked = search.has('account') ? (search.get('account') ?? '') : null;
  const [refused, setRefused] = useState<string | null>(null);
  const lastAccount = useRef(account);

  useEffect(() => {
    const pickerMoved = lastAccount.current !== account;
    lastAccount.current = account;
    if (!pickerMoved && linked !== null && linked !== account) {
      const free = me.role === 'admin' || openServer;
      const allowed = free
        ? linked === '' || ACCOUNT_ID.test(linked)
        : me.accounts.includes(linked) || (linked === '' && me.accounts.length > 1);
      setRefused(allowed ? null : linked);
      if (allowed) return setAccount(linked);
    } else if (pickerMoved) {
      setRefused(null);
    }
    // Another account's list starts at its newest page, and the URL names the account it shows.
    const stale = (linked !== null && linked !== account) || (pickerMoved && search.has('cursor'));
    if (!stale) return;
    const next = new URLSearchParams(search);
    if (linked !== null) next.set('account', account);
    next.delete('cursor');
    navigate('/tasks?' + next.toString(), { replace: true });
  }, [linked, account, me, openServer, setAccount, search]);

  return { account, refused, pending: linked !== null && linked !== account };
}

/** The page's select-all box: ticked when every row is, half-ticked when some are. */
function SelectAll({ total, ticked, onChange }: { total: number; ticked: number; onChange: (on: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  const some = ticked > 0 && ticked < total;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = some;
  }, [some]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all tasks on this page"
      checked={total > 0 && ticked === total}
      disabled={total === 0}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}

function TaskRow({ task, selected, onSelect }: { task: Task; selected: boolean; onSelect: (on: boolean) => void }) {
  const progress = taskRowProgress(task);
  const live = !TERMINAL_STATES.includes(task.state);
  return (
    <tr
      className={[live ? 'live' : '', selected ? 'selected' : ''].join(' ').trim() || undefined}
      onClick={(e) => {
        // A click on the id's link is the link's (Ctrl+click opens a new tab and must leave this one on the list).
        if ((e.target as Element).closest('a') === null) navigate(`/tasks/${task.id}`);
      }}
    >
      {/* A click on the box, or the cell around it (a larger target), selects: it never opens the task. */}
      <td
        className="select"
        onClick={(e) => {
          e.stopPropagation();
          if (e.target === e.currentTarget) onSelect(!selected);
        }}
      >
        <input
          type="checkbox"
          aria-label={`Select task ${task.id}`}
          checked={selected}
          onChange={(e) => onSelect(e.target.checked)}
        />
      </td>
      <td className="num">
        <Link to={`/tasks/${task.id}`}>{task.id}</Link>
      </td>
      <td>{task.accountId}</td>
      <td>
        <StateBadge state={task.state} />
      </td>
      <td className="message" title={task.content.body}>
        {task.content.title ? <strong>{task.content.title} </strong> : null}
        {task.content.body}
      </td>
      <td className="progress-cell">
        {progress ? (
          <>
            <Bar label={`task ${task.id} progress`} segments={progress.segments} />
            <span className="small muted">{progress.text}</span>
          </>
        ) : (
          <span className="small muted">{task.state === 'PREPROCESSING' ? 'pre-processing' : 'not started'}</span>
        )}
      </td>
      <td className="num">{fmtInt(task.listCount)}</td>
      <td>{task.priority === 'realtime' ? <span className="badge realtime">real-time</span> : 'normal'}</td>
      <td className="time">{fmtTime(task.sendAt)}</td>
      <td className="time">{fmtTime(task.createdAt)}</td>
    </tr>
  );
}

/** A typed date (YYYY-MM-DD) as the ISO start of that day in the browser's zone, plus `days`. */
function dayStart(date: string, days = 0): string | undefined {
  const parsed = parseDate(date);
  if ('error' in parsed) return undefined;
  const d = new Date(parsed.at);
  d.setDate(d.getDate() + days);
  return d.toISOString();
}

function dateError(date: string): string | undefined {
  if (date === '') return undefined;
  const parsed = parseDate(date);
  return 'error' in parsed ? parsed.error : undefined;
}

/** A creation-date filter: typed as YYYY-MM-DD, a mistake said under it. */
function DateFilter({
  name,
  label,
  value,
  error,
  onChange,
}: {
  name: 'from' | 'to';
  label: string;
  value: string;
  error: string | undefined;
  onChange: (name: string, value: string) => void;
}) {
  return (
    <>
      <input
        aria-label={label}
        className={`date mono ${error ? 'invalid' : ''}`}
        placeholder={DATE_PLACEHOLDER}
        autoComplete="off"
        spellCheck={false}
        value={value}
        aria-invalid={error !== undefined}
        aria-describedby={error ? `date-${name}-error` : undefined}
        onChange={(e) => onChange(name, e.target.value.trim())}
      />
      {error && (
        <span id={`date-${name}-error`} className="field-error" role="alert" data-field={`date-${name}`}>
          {error}
        </span>
      )}
    </>
  );
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
