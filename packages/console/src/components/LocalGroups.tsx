import type { LocalGroupProgress } from '../api/progress-types';
import { fmtInt, fmtRelative, fmtShare, fmtTime, offsetText } from '../lib/format';
import { Bar } from './bits';

/** Where a group stands, in words. */
export function groupState(group: LocalGroupProgress): string {
  if (group.skipped) return 'skipped';
  if (!group.released) return 'waiting';
  if (group.heldUntil !== undefined) return 'held for quiet hours';
  return group.confirmed >= group.recipients ? 'sent' : 'sending';
}

/**
 * A local-time or quiet-hours task's groups (GET /api/v1/tasks/:id/progress,
 * `localGroups`; docs/local-time.md): one row per release, with its zone's
 * offset, its instant, its size and how far it got. A skipped group (its
 * time had passed and the task says skip, or it would release after expiry)
 * is never sent.
 */
export function LocalGroups({ groups, now }: { groups: LocalGroupProgress[] | undefined; now: number }) {
  if (groups === undefined || groups.length === 0) return null;
  return (
    <div className="panel local-groups">
      <h2 id="groups-heading">Local-time groups</h2>
      {/* Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it. */}
      <table className="grid compact" aria-labelledby="groups-heading" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">Zone offset</th>
            <th scope="col">Released at (your time)</th>
            <th scope="col" className="num">
              Recipients
            </th>
            <th scope="col" className="num">
              Confirmed
            </th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => {
            const state = groupState(g);
            return (
              <tr key={`${g.releaseAt}:${g.offsetMinutes}`} data-group={g.offsetMinutes} data-group-state={state}>
                <td>{offsetText(g.offsetMinutes)}</td>
                <td>
                  {fmtTime(g.releaseAt)} <span className="muted small">({fmtRelative(g.releaseAt, now)})</span>
                </td>
                <td className="num">{fmtInt(g.recipients)}</td>
                <td className="num">
                  {fmtInt(g.confirmed)}{' '}
                  <span className="muted small">{g.recipients > 0 ? fmtShare(g.confirmed / g.recipients) : ''}</span>
                  <Bar
                    label={`Group ${offsetText(g.offsetMinutes)} confirmed`}
                    segments={[{ fraction: g.recipients > 0 ? g.confirmed / g.recipients : 0, tone: 'online' }]}
                  />
                </td>
                <td>{state}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="small muted">
        Each recipient is released at the local time in their own zone; a skipped group&apos;s recipients are never
        sent.
      </p>
    </div>
  );
}
