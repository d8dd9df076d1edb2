import { MISSED_TEXT, quietHoursWords } from '../lib/local-time-form';
import { templateRolloutWords } from '../lib/rollout-words';
import { useState } from 'react';
import { api, query } from '../api/client';
import type { Campaign, FiringPage, NoResend } from '../api/types';
import { CampaignEditor } from '../components/CampaignEditor';
import { ErrorBanner, Empty } from '../components/bits';
import { DailyReach } from '../components/DailyReach';
import { FireTimeList } from '../components/FireTimes';
import { DeleteCampaignButton } from '../components/DeleteCampaignButton';
import { RunNowButton } from '../components/RunNowButton';
import { usePoll, useNow, useTitle } from '../hooks';
import { fmtTime } from '../lib/format';
import { Link } from '../router';

/**
 * One campaign: its schedule, next five fire times, the switch, run now, the
 * edit form, and its firing history (newest first, paged; manual runs marked).
 */
export function CampaignPage({ id }: { id: string }) {
  useTitle(`Campaign ${id}`);
  const now = useNow(5000);
  const {
    data: campaign,
    error,
    setData,
  } = usePoll<Campaign>(
    (signal) => api('GET', `/api/v1/campaigns/${encodeURIComponent(id)}`, undefined, signal),
    [id],
    10_000,
  );
  const [cursors, setCursors] = useState<number[]>([]);
  const cursor = cursors[cursors.length - 1];
  const history = usePoll<FiringPage>(
    (signal) =>
      api(
        'GET',
        `/api/v1/campaigns/${encodeURIComponent(id)}/firings` + query({ cursor, limit: 20 }),
        undefined,
        signal,
      ),
    [id, cursor],
    5000,
  );
  const [switchError, setSwitchError] = useState<Error | null>(null);
  const [editing, setEditing] = useState(false);

  const toggle = async () => {
    if (!campaign) return;
    setSwitchError(null);
    try {
      setData(
        await api<Campaign>('POST', `/api/v1/campaigns/${campaign.id}/${campaign.enabled ? 'disable' : 'enable'}`),
      );
    } catch (e) {
      setSwitchError(e as Error);
    }
  };

  if (!campaign) {
    return (
      <section>
        <p className="crumbs">
          <Link to="/campaigns">Campaigns</Link> / {id}
        </p>
        {error ? <ErrorBanner error={error} /> : <p className="muted">Loading…</p>}
      </section>
    );
  }
  const t = campaign.template;
  return (
    <section>
      <p className="crumbs">
        <Link to="/campaigns">Campaigns</Link> / {campaign.id}
      </p>
      <div className="page-head">
        <h1>
          {campaign.name}{' '}
          <span className={`badge ${campaign.enabled ? 'enabled' : 'disabled'}`}>
            {campaign.enabled ? 'enabled' : 'disabled'}
          </span>
        </h1>
        <div className="commands">
          <button onClick={() => setEditing(true)} disabled={editing}>
            Edit
          </button>
          <RunNowButton campaign={campaign} onError={setSwitchError} />
          <button onClick={toggle} className={campaign.enabled ? undefined : 'primary'}>
            {campaign.enabled ? 'Disable' : 'Enable'}
          </button>
          <DeleteCampaignButton campaign={campaign} onError={setSwitchError} />
        </div>
      </div>
      <ErrorBanner error={switchError} />
      {editing && (
        <CampaignEditor
          campaign={campaign}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            setData(saved);
            setEditing(false);
          }}
        />
      )}
      <div className="columns">
        <div className="panel grow">
          <h2>Schedule</h2>
          <p>
            <code>{campaign.cron}</code> in <strong>{campaign.timeZone}</strong>, account{' '}
            <strong>{campaign.accountId}</strong>
          </p>
          <h2>Projected daily reach</h2>
          <DailyReach reach={campaign.projectedDailyReach} />
          {!campaign.enabled && campaign.projectedDailyReach && (
            <p className="small muted">What it sends once enabled.</p>
          )}
          <h2>Next five fire times</h2>
          <div aria-label="next fire times">
            <FireTimeList times={campaign.nextFireTimes} timeZone={campaign.timeZone} now={now} />
          </div>
        </div>
        <div className="panel grow">
          <h2>Template</h2>
          {t.content.title && <div className="msg-title">{t.content.title}</div>}
          <div className="msg-body">{t.content.body}</div>
          <p className="small muted">
            List <code>{t.listId}</code> · {t.priority} priority ·{' '}
            {t.ttlSeconds ? `valid ${Math.round(t.ttlSeconds / 360) / 10} h` : 'default duration'} ·{' '}
            <span aria-label="resend">{resendText(t.noResend)}</span>
          </p>
          {(t.deliverAt || t.quietHours) && (
            <p className="small muted" data-setting="campaign-local-time">
              {t.deliverAt &&
                `Each firing at ${t.deliverAt.localTime} in each recipient's zone (window ${t.deliverAt.window ?? '1h'}; zones past it: ${MISSED_TEXT[t.deliverAt.missed ?? 'next_day']}).`}{' '}
              {t.quietHours && `Quiet hours ${quietHoursWords(t.quietHours)}.`}
            </p>
          )}
          {(t.collapseKey || t.canary || t.variants) && (
            <p className="small muted" data-setting="campaign-rollout">
              {templateRolloutWords(t)}
            </p>
          )}
        </div>
      </div>
      <div className="panel">
        <h2>History</h2>
        <ErrorBanner error={history.error} />
        {history.data && history.data.firings.length === 0 ? (
          <Empty>It has not fired yet.</Empty>
        ) : (
          <table className="grid compact">
            <thead>
              <tr>
                <th>Scheduled for ({campaign.timeZone})</th>
                <th>Outcome</th>
                <th>Task</th>
                <th>Reason</th>
                <th>Handled at (your time)</th>
              </tr>
            </thead>
            <tbody>
              {history.data?.firings.map((f) => (
                <tr key={f.scheduledAt}>
                  <td className="time">{fmtTime(f.scheduledAt, campaign.timeZone)}</td>
                  <td>
                    <span className={`badge ${f.outcome === 'fired' ? 'state-completed' : 'state-paused'}`}>
                      {f.outcome}
                    </span>
                    {f.manual && <span className="small muted"> run now</span>}
                  </td>
                  <td>{f.taskId === null ? '–' : <Link to={`/tasks/${f.taskId}`}>task {f.taskId}</Link>}</td>
                  <td>
                    {f.reason ?? ''}
                    {f.note && (
                      <span className="small" role="note">
                        {f.note.message}
                      </span>
                    )}
                  </td>
                  <td className="time">{fmtTime(f.at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="pager">
          <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            ← Newer
          </button>
          <button
            disabled={history.data?.nextCursor == null}
            onClick={() => setCursors([...cursors, history.data!.nextCursor!])}
          >
            Older →
          </button>
        </div>
      </div>
    </section>
  );
}

/** The template's no-resend scope in words. */
function resendText(noResend: NoResend | undefined): string {
  switch (noResend?.scope) {
    case 'firing':
      return 'sent to everyone every firing';
    case 'window':
      return `not the same content twice within ${noResend.window}`;
    default:
      return 'each content once per recipient';
  }
}
