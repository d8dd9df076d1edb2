import { useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { AudienceJob, ListMeta } from '../api/types';
import { fmtInt } from '../lib/format';
import { Bar } from './bits';
import { operatorMessage } from '../lib/operator-words';

const POLL_MS = 1000;
const EXAMPLE = 'region:eu AND (age:18-24 OR tag:vip) AND active-since:30d';

/**
 * Builds the recipient list from a source instead of an upload: the
 * account's followers, or the users a targeting query matches. The server
 * runs it as a job (POST /api/v1/audiences); this polls its progress and
 * hands the finished list to the form. A query is checked as it is typed
 * (GET /api/v1/audiences/check-query: a GET, so checking as the user types writes no audit entries): a mistake shows under the field
 * with its position. A deployment without that source says so here, and
 * an empty source says where its data comes from.
 */
export function AudienceBuilder({
  accountId,
  kind,
  onBuilt,
  error,
}: {
  accountId: string;
  kind: 'followers' | 'targeting';
  onBuilt: (list: ListMeta | null) => void;
  error?: string;
}) {
  const [query, setQuery] = useState('');
  const [queryError, setQueryError] = useState<string | undefined>();
  const [job, setJob] = useState<AudienceJob | null>(null);
  const [failure, setFailure] = useState<string | undefined>();
  const polling = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(polling.current), []);

  // Check the query a moment after typing stops.
  useEffect(() => {
    if (kind !== 'targeting' || query.trim() === '') {
      setQueryError(undefined);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api('GET', `/api/v1/audiences/check-query?query=${encodeURIComponent(query)}`, undefined, controller.signal).then(
        () => setQueryError(undefined),
        (e) => {
          if ((e as Error).name !== 'AbortError') setQueryError(describe(e as Error));
        },
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [kind, query]);

  const follow = (id: string) => {
    polling.current = setTimeout(async () => {
      try {
        const next = await api<AudienceJob>('GET', `/api/v1/audiences/${encodeURIComponent(id)}`);
        setJob(next);
        if (next.state === 'running') return follow(id);
        if (next.state === 'done' && next.list) onBuilt(next.list);
        else if (next.state === 'failed') setFailure(failureOf(next, kind));
      } catch (e) {
        setFailure((e as Error).message);
      }
    }, POLL_MS);
  };

  const build = async () => {
    clearTimeout(polling.current);
    setFailure(undefined);
    setJob(null);
    onBuilt(null);
    if (kind === 'targeting' && query.trim() === '') return setQueryError('Write the query, e.g. ' + EXAMPLE);
    try {
      const started = await api<AudienceJob>('POST', '/api/v1/audiences', {
        accountId,
        source: kind === 'followers' ? { kind } : { kind, query },
      });
      setJob(started);
      follow(started.id);
    } catch (e) {
      const field = e instanceof ApiError ? e.field : undefined;
      if (field === 'source.query') setQueryError(describe(e as Error));
      else setFailure(describe(e as Error));
    }
  };

  const cancel = async () => {
    if (!job) return;
    clearTimeout(polling.current);
    try {
      setJob(await api<AudienceJob>('DELETE', `/api/v1/audiences/${encodeURIComponent(job.id)}`));
    } catch (e) {
      setFailure((e as Error).message);
    }
  };

  const running = job?.state === 'running';
  const shown = failure ?? error;
  return (
    <div className="audience-builder">
      {kind === 'targeting' && (
        <div className={`field stacked ${queryError ? 'has-error' : ''}`}>
          <input
            id="query"
            aria-label="Targeting query"
            className="mono"
            value={query}
            placeholder={EXAMPLE}
            onChange={(e) => setQuery(e.target.value)}
          />
          {queryError ? (
            <div className="field-error" role="alert" data-field="query">
              {queryError}
            </div>
          ) : (
            <div className="hint">
              Attributes region, gender, age, tag, active-since; AND, OR, NOT and parentheses
              (docs/audience-sources.md).
            </div>
          )}
        </div>
      )}
      <div className="commands">
        <button type="button" onClick={build} disabled={running || (kind === 'targeting' && queryError !== undefined)}>
          {kind === 'followers' ? 'Build the list of followers' : 'Build the list of matching users'}
        </button>
        {running && (
          <button type="button" className="link" onClick={cancel}>
            cancel
          </button>
        )}
      </div>
      {job && (
        <div className="upload-progress">
          <Bar
            label="audience progress"
            segments={[
              { fraction: job.state === 'running' ? null : 1, tone: job.state === 'done' ? 'online' : 'neutral' },
            ]}
            status={job.state === 'done' ? 'done' : job.state === 'running' ? 'running' : 'halted'}
          />
          <span className="small muted">
            {job.state === 'running' ? `${fmtInt(job.progress.uins)} recipients so far` : job.state}
          </span>
        </div>
      )}
      {job?.state === 'done' && job.list && (
        <div className="upload-result" data-list-id={job.list.id}>
          List <code>{job.list.id}</code>: <strong>{fmtInt(job.list.count)}</strong> recipients
        </div>
      )}
      {shown && (
        <div className="field-error" role="alert" data-field="listId">
          {shown}
        </div>
      )}
    </div>
  );
}

/**
 * A failed job in the operator's words. An empty source is the usual one on
 * a fresh Herald: followers and attributes arrive through the API (or the
 * herald.follows topic), and only `herald demo` seeds some.
 */
function failureOf(job: AudienceJob, kind: 'followers' | 'targeting'): string {
  if (job.error?.code !== 'LIST_EMPTY') return job.error?.message ?? 'the job failed';
  return kind === 'followers'
    ? `Account ${job.accountId} has no followers in this Herald yet: they arrive by POST /api/v1/follows (herald demo seeds some for account demo).`
    : "No user matches this query. Users' attributes arrive by POST /api/v1/user-attributes (herald demo seeds some).";
}

function describe(error: Error): string {
  if (error instanceof ApiError && error.status === 404 && error.code === 'NOT_FOUND')
    return 'This Herald has no audience sources (no /api/v1/audiences): upload a list instead.';
  return error instanceof ApiError ? operatorMessage(error) : error.message;
}
