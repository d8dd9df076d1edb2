import { useEffect, useState } from 'react';
import type { TaskProgress } from '../api/progress-types';
import { api } from '../api/client';
import { FILTER_REASONS, TERMINAL_STATES, type Task } from '../api/types';
import { ErrorBanner, StateBadge } from '../components/bits';
import { RateChart } from '../components/RateChart';
import { ReportDownload } from '../components/ReportDownload';
import { RecipientLookup } from '../components/RecipientLookup';
import { SendCountdown } from '../components/SendCountdown';
import { StageBars } from '../components/StageBars';
import { TaskCommands } from '../components/TaskCommands';
import { TaskFunnel } from '../components/TaskFunnel';
import { TaskSettings } from '../components/TaskSettings';
import { LocalGroups } from '../components/LocalGroups';
import { CanaryPanel } from '../components/CanaryPanel';
import { usePoll, useNow, useTitle } from '../hooks';
import { campaignOfTask } from '../lib/campaign-of';
import { fmtDuration, fmtInt, fmtPercent, fmtRelative, fmtTime } from '../lib/format';
import { emptyChartText, eta, smoothedRatePoints } from '../lib/rate';
import { confirmed } from '../lib/stages';
import { showsCountdown } from '../lib/countdown';
import { REASON_TEXT } from '../lib/reasons';
import { channelHoldText, deadLettersOf } from '../lib/channel';
import { Link } from '../router';

const LIVE_POLL_MS = 1000;
const DONE_POLL_MS = 15_000;
/** The rate chart averages over this much of the curve: a batch-at-a-time task draws its pace. */
const SMOOTHING_MS = 8_000;

/** "in 8 s" while it may still start; a task ended before its send time never will, so no countdown then. */
function sendAtNote(task: Task, now: number): string {
  if (TERMINAL_STATES.includes(task.state) && task.sendAt > now) return `${task.state.toLowerCase()}: not sent`;
  return fmtRelative(task.sendAt, now);
}

/**
 * One broadcast: where it is stage by stage, what the filters removed and
 * why, the live delivery rate and ETA, and its commands. Polls the task
 * once a second while it is live (one small GET), rarely once it ended.
 */
export function TaskPage({ id }: { id: string }) {
  const [live, setLive] = useState(true);
  const {
    data: task,
    error,
    reload,
  } = usePoll<Task>(
    (signal) => api('GET', `/api/v1/tasks/${encodeURIComponent(id)}`, undefined, signal),
    [id],
    live ? LIVE_POLL_MS : DONE_POLL_MS,
  );
  // The curve its scheduler recorded from the first sample: the same chart for a running and a finished task.
  const { data: progress } = usePoll<TaskProgress>(
    (signal) => api('GET', `/api/v1/tasks/${encodeURIComponent(id)}/progress`, undefined, signal),
    [id],
    live ? LIVE_POLL_MS : DONE_POLL_MS,
  );
  const now = useNow();
  useTitle(task ? `Task ${task.id} ${task.state}` : `Task ${id}`);

  useEffect(() => {
    if (!task) return;
    setLive(!TERMINAL_STATES.includes(task.state));
  }, [task]);

  if (!task) {
    return (
      <section>
        <p className="crumbs">
          <Link to="/tasks">Tasks</Link> / {id}
        </p>
        {error ? <ErrorBanner error={error} /> : <p className="muted">Loading…</p>}
      </section>
    );
  }
  const r = task.report;
  // A rate only while the task moves: a paused or finished task's last rate would be stale.
  const moving = task.state === 'SENDING' || task.state === 'DISPATCHING';
  const rate = moving && progress !== undefined && progress.recorded ? progress.ratePerSecond : null;
  const remaining = Math.max(0, r.kept - confirmed(task));
  const etaMs = task.state === 'COMPLETED' ? 0 : task.state === 'SENDING' ? eta(remaining, rate) : null;
  const deadLetters = deadLettersOf(r);
  const removedTotal = Object.values(r.removed).reduce<number>((sum, n) => sum + (n ?? 0), 0);

  return (
    <section className="task-page">
      <p className="crumbs">
        <Link to="/tasks">Tasks</Link> / {task.id}
      </p>
      <div className="page-head">
        <h1>
          Task {task.id} <StateBadge state={task.state} />
          {task.priority === 'realtime' && <span className="badge realtime">real-time</span>}
        </h1>
        <TaskCommands task={task} onDone={reload} />
        <ReportDownload task={task} />
      </div>
      {showsCountdown(task, now) && <SendCountdown task={task} onCancelled={reload} />}
      <ErrorBanner error={error} />
      {task.error && (
        <div className="banner error" role="alert">
          <strong>{task.error.code}</strong> {task.error.message}
        </div>
      )}
      <div className="columns">
        <div className="panel grow">
          <h2>Progress</h2>
          <StageBars task={task} />
          {progress?.waiting && (
            <p className="small muted" data-waiting>
              {progress.waiting.message}
            </p>
          )}
          {task.state === 'SENDING' && progress?.quietHold && (
            <p className="small" role="status" data-quiet-hold>
              {progress.quietHold.message}
            </p>
          )}
          {task.state === 'SENDING' && r.channel && (
            <p className="small" role="status" data-channel={r.channel.state}>
              {channelHoldText(r.channel)}
            </p>
          )}
        </div>
        <div className="panel facts">
          <h2>Summary</h2>
          <dl>
            <dt>Account</dt>
            <dd>{task.accountId}</dd>
            {campaignOfTask(task.idempotencyKey) !== null && (
              <>
                <dt>Fired by</dt>
                <dd>
                  <Link to={`/campaigns/${campaignOfTask(task.idempotencyKey)}`}>
                    campaign {campaignOfTask(task.idempotencyKey)}
                  </Link>
                </dd>
              </>
            )}
            <dt>Speed</dt>
            <dd data-fact="speed">{task.speed == null ? 'not paced' : `${fmtInt(task.speed)} recipients/s`}</dd>
            <dt>Recipients in list</dt>
            <dd className="num">{fmtInt(task.listCount)}</dd>
            <dt>Kept after filters</dt>
            <dd className="num">{fmtInt(r.kept)}</dd>
            <dt>Pushed online</dt>
            <dd className="num" data-count="delivered">
              {fmtInt(r.delivered)}
            </dd>
            <dt>Queued offline</dt>
            <dd className="num" data-count="offline">
              {fmtInt(r.offline)}
            </dd>
            {deadLetters.total > 0 && (
              <>
                <dt>Dead letters</dt>
                <dd
                  className="num"
                  data-count="dead-letters"
                  title={deadLetters.byReason.map(([reason, n]) => `${reason}: ${fmtInt(n)}`).join(', ')}
                >
                  {fmtInt(deadLetters.total)}
                </dd>
              </>
            )}
            <dt>Removed</dt>
            <dd className="num" data-count="removed">
              {fmtInt(removedTotal)}
            </dd>
            <dt>Rate</dt>
            <dd className="num">{rate === null ? '–' : `${fmtInt(rate)} /s`}</dd>
            <dt>ETA</dt>
            <dd>
              {etaMs === null ? (task.state === 'PAUSED' ? 'paused' : '–') : etaMs === 0 ? 'done' : fmtDuration(etaMs)}
            </dd>
            <dt>Send at</dt>
            <dd title={fmtTime(task.sendAt)}>
              {fmtTime(task.sendAt)} <span className="muted small">({sendAtNote(task, now)})</span>
            </dd>
            {task.displayAt != null && (
              <>
                <dt>Shown at</dt>
                <dd>
                  {fmtTime(task.displayAt)} <span className="muted small">(pre-delivered)</span>
                </dd>
              </>
            )}
            <dt>Expires</dt>
            <dd>
              {fmtTime(task.expiresAt)} <span className="muted small">({fmtRelative(task.expiresAt, now)})</span>
            </dd>
            <dt>Owner</dt>
            <dd>{task.owner ?? '–'}</dd>
            <dt>Updated</dt>
            <dd>{fmtRelative(task.updatedAt, now)}</dd>
          </dl>
        </div>
      </div>
      <CanaryPanel task={task} now={now} onDone={reload} />
      <TaskSettings task={task} />
      <LocalGroups groups={progress?.localGroups} now={now} />
      <div className="columns">
        <div className="panel grow">
          <h2>Delivery rate</h2>
          <RateChart
            points={smoothedRatePoints(progress?.samples ?? [], SMOOTHING_MS, progress?.intervalMs)}
            live={moving}
            empty={emptyChartText(progress, TERMINAL_STATES.includes(task.state))}
          />
          <p className="small muted">
            Recipients confirmed per second (pushed online + queued offline), averaged over {SMOOTHING_MS / 1000} s,
            from the task&apos;s first recorded sample (its scheduler samples it each second while it sends).
          </p>
        </div>
        <div className="panel">
          <h2>Removed by filter</h2>
          <table className="grid compact removed">
            <tbody>
              {FILTER_REASONS.map((reason) => (
                <tr key={reason} className={(r.removed[reason] ?? 0) > 0 ? undefined : 'zero'}>
                  <td>{REASON_TEXT[reason]}</td>
                  <td className="num" data-reason={reason}>
                    {fmtInt(r.removed[reason] ?? 0)}
                  </td>
                  <td className="num muted">{fmtPercent(r.removed[reason] ?? 0, r.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <TaskFunnel task={task} />
      <RecipientLookup task={task} />
      <div className="panel">
        <h2>Message</h2>
        {task.content.title && <div className="msg-title">{task.content.title}</div>}
        <div className="msg-body">{task.content.body}</div>
        {task.rollout?.variants?.map((v) => (
          <div className="variant-content" key={v.name} data-variant-content={v.name}>
            <h3 className="small muted">Variant {v.name}</h3>
            {v.content.title && <div className="msg-title">{v.content.title}</div>}
            <div className="msg-body">{v.content.body}</div>
          </div>
        ))}
        <p className="small muted">
          List <code>{task.listId}</code> · created {fmtTime(task.createdAt)}
        </p>
      </div>
    </section>
  );
}
