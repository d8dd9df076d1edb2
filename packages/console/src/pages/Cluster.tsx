import { api, ApiError } from '../api/client';
import type { ClusterView } from '../api/types';
import { Bar, ErrorBanner, NotYet, StateBadge } from '../components/bits';
import { usePoll, useTitle } from '../hooks';
import { fmtDuration, fmtInt } from '../lib/format';

/** The cluster as the answering interface process sees it: APTA members, their states, ring shares and owned tasks. */
export function Cluster() {
  useTitle('Cluster');
  const { data, error } = usePoll<ClusterView>((signal) => api('GET', '/api/v1/cluster', undefined, signal), [], 3000);
  const owned = data?.members.reduce((sum, m) => sum + m.liveTasks, 0) ?? 0;
  return (
    <section>
      <div className="page-head">
        <h1>Cluster</h1>
        {data && (
          <span className="muted">
            {data.apta ? 'APTA membership' : 'static membership (embedded or no APTA)'}
            {data.self && (
              <>
                {' '}
                · answering: <strong>{data.self.id}</strong> <StateBadge state={data.self.state} />
              </>
            )}
          </span>
        )}
      </div>
      {error instanceof ApiError && error.status === 403 ? (
        <div className="banner info" role="alert">
          Only an admin token can see the cluster. Sign in with one to see its members and ring.
        </div>
      ) : (
        <ErrorBanner error={error} />
      )}
      {data && (
        <>
          <div className="tiles">
            <Tile label="Members" value={fmtInt(data.members.length)} />
            <Tile label="On the ring" value={fmtInt(data.ring.length)} />
            <Tile label="Working" value={fmtInt(data.members.filter((m) => m.state === 'WORKING').length)} />
            <Tile label="Live tasks owned" value={fmtInt(owned)} />
            <Tile label="Live tasks without owner" value={fmtInt(data.unownedLiveTasks)} warn={data.unownedLiveTasks > 0} />
          </div>
          <div className="panel">
            <h2>Members</h2>
            <table className="grid cluster">
              <thead>
                <tr>
                  <th>Member</th>
                  <th>APTA state</th>
                  <th>Takes work</th>
                  <th>Ring share</th>
                  <th className="num">Live tasks</th>
                  <th className="num">Last heard</th>
                </tr>
              </thead>
              <tbody>
                {data.members.map((m) => (
                  <tr key={m.id} data-member={m.id}>
                    <td>
                      <strong>{m.id}</strong>
                    </td>
                    <td>
                      <StateBadge state={m.state} />
                    </td>
                    <td>{m.takesWork ? 'yes' : 'no'}</td>
                    <td className="share">
                      <Bar label={`${m.id} ring share`} segments={[{ fraction: m.ringShare, tone: 'online' }]} />
                      <span className="small">{(m.ringShare * 100).toFixed(1)}%</span>
                    </td>
                    <td className="num">{fmtInt(m.liveTasks)}</td>
                    <td className="num">{m.lastHeardAgoMs === undefined ? '–' : fmtDuration(m.lastHeardAgoMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="panel">
            <h2>Executor hosts</h2>
            <p>
              <NotYet>host loads (CPU, memory, batches in flight per executor) are not reported by the API; each process's management endpoint shows its own (docs/operations.md).</NotYet>
            </p>
          </div>
        </>
      )}
    </section>
  );
}

function Tile({ label, value, warn }: { label: string; value: string; warn?: boolean }) {
  return (
    <div className={`tile ${warn ? 'warn' : ''}`}>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}
