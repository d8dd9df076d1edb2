import type { DryRunAnswer } from '../api/types';
import { fmtDuration, fmtInt, fmtPercent, fmtTime } from '../lib/format';
import { reasonText } from '../lib/reasons';

/**
 * What the broadcast would do, from the server's dry run (POST
 * /api/v1/tasks?dryRun=true, nothing created): recipients listed, kept and
 * removed per filter, when it would start and expire, how long the send
 * would take, and whether the server will ask for a confirmation.
 */
export function DryRunPreview({ result }: { result: DryRunAnswer }) {
  const { listed, kept, removed, sampled } = result.recipients;
  const reasons = Object.entries(removed ?? {}).filter(([, n]) => (n ?? 0) > 0);
  return (
    <div className="dry-run" aria-label="dry run">
      <dl className="dry-run-counts">
        <dt>Listed</dt>
        <dd className="num" data-dry="listed">
          {fmtInt(listed)}
        </dd>
        <dt>Would receive it</dt>
        <dd className="num" data-dry="kept">
          {kept === null ? '–' : fmtInt(kept)}
        </dd>
        <dt>Removed</dt>
        <dd className="num" data-dry="removed">
          {kept === null ? '–' : fmtInt(listed - kept)}
        </dd>
      </dl>
      {kept === null && (
        <p className="small muted">
          This Herald process cannot run the filters: the list's size is all it can tell before sending.
        </p>
      )}
      {sampled !== undefined && (
        <p className="small muted">
          Estimated from a sample of {fmtInt(sampled)} recipients (the list is too large to filter whole); a sample sees
          few duplicates.
        </p>
      )}
      {reasons.length > 0 && (
        <table className="grid compact removed">
          <tbody>
            {reasons.map(([reason, n]) => (
              <tr key={reason}>
                <td>{reasonText(reason)}</td>
                <td className="num" data-dry-reason={reason}>
                  {fmtInt(n ?? 0)}
                </td>
                <td className="num muted">{fmtPercent(n ?? 0, listed)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="small">
        Starts <strong data-dry="sendAt">{fmtTime(result.sendAt)}</strong>, valid until{' '}
        <strong data-dry="expiresAt">{fmtTime(result.expiresAt)}</strong>
        {result.estimatedSendMs !== null && (
          <>, sending takes about {fmtDuration(result.estimatedSendMs)} at its speed</>
        )}
        .
      </p>
      {result.confirmationRequired && (
        <p className="banner info small" data-dry="confirmation">
          This is a large broadcast starting soon: sending it will ask you to confirm the number of recipients.
        </p>
      )}
    </div>
  );
}
