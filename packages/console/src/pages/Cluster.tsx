import { api, ApiError } from '../api/client';
import type { ClusterView, ExecutorHostLoad } from '../api/types';
import { Bar, ErrorBanner, NotYet, StateBadge } from '../components/bits';
import { usePoll, useTitle } from '../hooks';
import { fmtBytes, fmtDuration, fmtInt } from '../lib/format';

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
            <Tile
              label="Live tasks without owner"
              value={fmtInt(data.unownedLiveTasks)}
              warn={data.unownedLiveTasks > 0}
            />
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
            {data.hosts === undefined ? (
              <p>
                <NotYet>
                  host loads reach the dispatchers, and this interface runs none in its process (a production cluster):
                  each dispatcher&apos;s management status lists the reports it holds (docs/operations.md).
                </NotYet>
              </p>
            ) : data.hosts.length === 0 ? (
              <p className="muted">No executor has reported its load yet.</p>
            ) : (
              <HostLoads hosts={data.hosts} />
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** Each executor's last load report: what load-aware dispatch plans units with (a report older than load.staleMs is not used). */
function HostLoads({ hosts }: { hosts: ExecutorHostLoad[] }) {
  return (
    <table className="grid">
      <thead>
        <tr>
          <th>Executor</th>
          <th>CPU busy</th>
          <th>Memory used</th>
          <th className="num">NIC</th>
          <th className="num">Free sender slots</th>
          <th className="num">Reported</th>
        </tr>
      </thead>
      <tbody>
        {hosts.map((h) => {
          const used = h.memTotalBytes - h.memAvailableBytes;
          return (
            <tr key={h.executorId} data-host={h.executorId}>
              <td>
                <strong>{h.executorId}</strong>
              </td>
              <td className="share">
                <Bar
                  label={`${h.executorId} CPU busy`}
                  segments={[{ fraction: h.cpuBusyPermille / 1000, tone: 'online' }]}
                />
                <span className="small">
                  {(h.cpuBusyPermille / 10).toFixed(1)}% of {h.cpuCores} cores
                </span>
              </td>
              <td className="share">
                <Bar
                  label={`${h.executorId} memory used`}
                  segments={[{ fraction: h.memTotalBytes > 0 ? used / h.memTotalBytes : 0, tone: 'offline' }]}
                />
                <span className="small">
                  {fmtBytes(used)} of {fmtBytes(h.memTotalBytes)}
                </span>
              </td>
              <td className="num">
                {fmtBytes(h.nicBytesPerSecond)}/s of {fmtBytes(h.nicCapacityBytesPerSecond)}/s
              </td>
              <td className="num">
                {fmtInt(h.senderSlotsFree)} of {fmtInt(h.senderSlots)}
              </td>
              <td className="num">{fmtDuration(h.ageMs)} ago</td>
            </tr>
          );
        })}
      </tbody>
    </table>
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
