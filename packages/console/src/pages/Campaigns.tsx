import { useState } from 'react';
import { api, ApiError, query } from '../api/client';
import type { CampaignPage } from '../api/types';
import { Empty, ErrorBanner } from '../components/bits';
import { SearchBox } from '../components/SearchBox';
import { usePoll, useNow, useTitle } from '../hooks';
import { fmtInt, fmtRelative, fmtTime } from '../lib/format';
import { noMatchText } from '../lib/task-search';
import { Link, navigate } from '../router';
import { useSession } from '../session';

/** Cron campaigns of the account: schedule, next fire time, on/off; paged on the server. */
export function Campaigns() {
  useTitle('Campaigns');
  const { account } = useSession();
  const [cursors, setCursors] = useState<number[]>([]);
  const cursor = cursors[cursors.length - 1];
  // Name, title, message or id, searched by the server; a new search starts from the first page.
  const [q, setQ] = useState('');
  const now = useNow(5000);
  const { data, error, reload } = usePoll<CampaignPage>(
    (signal) =>
      api('GET', '/api/v1/campaigns' + query({ accountId: account, q, cursor, limit: 50 }), undefined, signal),
    [account, q, cursor],
    10_000,
  );
  const [switchError, setSwitchError] = useState<Error | null>(null);

  const toggle = async (id: number, enable: boolean) => {
    setSwitchError(null);
    try {
      await api('POST', `/api/v1/campaigns/${id}/${enable ? 'enable' : 'disable'}`);
      reload();
    } catch (e) {
      setSwitchError(e as Error);
    }
  };

  if (error instanceof ApiError && error.code === 'NOT_FOUND') {
    return (
      <section>
        <h1>Campaigns</h1>
        <Empty>This Herald has no campaigns API (GET /api/v1/campaigns answered 404).</Empty>
      </section>
    );
  }
  return (
    <section>
      <div className="page-head">
        <h1>Campaigns</h1>
        <Link to="/campaigns/new" className="button primary">
          New campaign
        </Link>
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <SearchBox
            label="Search campaigns"
            placeholder="id, name, title or message"
            value={q}
            onSearch={(next) => {
              setCursors([]);
              setQ(next);
            }}
          />
        </label>
      </form>
      <ErrorBanner error={error ?? switchError} />
      {data && data.campaigns.length === 0 ? (
        <Empty>
          {q !== ''
            ? noMatchText('campaign', q, data.nextCursor != null, false)
            : `No campaign for ${account ? `account ${account}` : 'any account'} yet.`}
        </Empty>
      ) : (
        <table className="grid campaigns">
          <thead>
            <tr>
              <th className="num">Id</th>
              <th>Name</th>
              <th>Account</th>
              <th>Schedule</th>
              <th>Next fire time</th>
              <th className="num" title="Projected: firings a day (averaged over a week) × the list's recipients">
                Reach a day
              </th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data?.campaigns.map((c) => {
              const next = c.nextFireTimes[0];
              return (
                <tr key={c.id} data-campaign={c.id}>
                  <td className="num">{c.id}</td>
                  <td>
                    <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>{c.accountId}</td>
                  <td>
                    <code>{c.cron}</code> <span className="muted small">{c.timeZone}</span>
                  </td>
                  <td className="time">
                    {next ? (
                      <>
                        {fmtTime(Date.parse(next), c.timeZone)}{' '}
                        <span className="muted small">({fmtRelative(Date.parse(next), now)})</span>
                      </>
                    ) : (
                      '–'
                    )}
                  </td>
                  {/* Beside the Enable button: what enabling it starts. */}
                  <td className="num" data-reach-of={c.id}>
                    {c.projectedDailyReach?.recipientsPerDay == null
                      ? '–'
                      : fmtInt(c.projectedDailyReach.recipientsPerDay)}
                  </td>
                  <td>
                    <span className={`badge ${c.enabled ? 'enabled' : 'disabled'}`}>
                      {c.enabled ? 'enabled' : 'disabled'}
                    </span>
                  </td>
                  <td className="actions-cell">
                    <button onClick={() => toggle(c.id, !c.enabled)}>{c.enabled ? 'Disable' : 'Enable'}</button>
                    <button onClick={() => navigate(`/campaigns/${c.id}`)}>History</button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Previous
        </button>
        <button disabled={data?.nextCursor == null} onClick={() => setCursors([...cursors, data!.nextCursor!])}>
          Next →
        </button>
      </div>
    </section>
  );
}
