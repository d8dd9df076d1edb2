import { api } from '../api/client';
import type { TaskFunnel as Funnel } from '../api/funnel-types';
import { TERMINAL_STATES, type Task } from '../api/types';
import { usePoll } from '../hooks';
import { funnelRows } from '../lib/funnel';
import { fmtInt } from '../lib/format';
import { ErrorBanner } from './bits';
import { VariantCounts } from './VariantCounts';

const LIVE_POLL_MS = 2000;
const DONE_POLL_MS = 15_000;

/**
 * The task's funnel (GET /api/v1/tasks/:id/funnel): the audience, what each
 * filter link removed, then how the kept recipients stand and what became of
 * the offline ones, each a row with its count and share as text and a bar
 * beside it (the bar repeats the share; it is hidden from screen readers).
 * Refreshed every 2 s while the task is live: logins keep moving it after.
 */
export function TaskFunnel({ task }: { task: Task }) {
  const live = !TERMINAL_STATES.includes(task.state);
  const { data, error } = usePoll<Funnel>(
    (signal) => api('GET', `/api/v1/tasks/${task.id}/funnel`, undefined, signal),
    [task.id],
    live ? LIVE_POLL_MS : DONE_POLL_MS,
  );
  return (
    <div className="panel funnel-panel">
      <h2 id="funnel-heading">Funnel</h2>
      <ErrorBanner error={error} />
      {data === undefined ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <table className="grid compact funnel" aria-labelledby="funnel-heading">
          <thead>
            <tr>
              <th scope="col">Stage</th>
              <th scope="col" className="num">
                Recipients
              </th>
              <th scope="col" className="num">
                Of audience
              </th>
              <th scope="col">
                <span className="visually-hidden">Share, drawn</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {funnelRows(data.stages).map((row) => (
              <tr key={row.key} data-funnel={row.key} className={row.count === 0 ? 'zero' : undefined}>
                <th scope="row" className={`funnel-label depth-${row.depth}`}>
                  {row.label}
                  {row.note !== null && <div className="small muted funnel-note">{row.note}</div>}
                </th>
                <td className="num" data-funnel-count>
                  {row.count === null ? 'unknown' : fmtInt(row.count)}
                </td>
                <td className="num muted">{row.share === null ? '–' : `${(row.share * 100).toFixed(1)}%`}</td>
                <td className="funnel-bar-cell" aria-hidden="true">
                  <div className="bar">
                    <span className={`fill ${row.tone}`} style={{ width: `${Math.min(1, row.share ?? 0) * 100}%` }} />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <VariantCounts variants={data?.variants} />
      <p className="small muted">
        Each count is what the delivery report&apos;s rows add up to; a count the records cannot back says
        &ldquo;unknown&rdquo; and why.
      </p>
    </div>
  );
}
