import type { ProjectedDailyReach } from '../api/types';
import { fmtInt } from '../lib/format';

/** A weekday schedule fires 5/7 times a day on average: keep up to two decimals for such rates. */
const fmtRate = (n: number) => (Number.isInteger(n) ? fmtInt(n) : String(Math.round(n * 100) / 100));

/**
 * What a campaign sends in a day: shown before it is enabled, so a schedule
 * that fires every minute to a million people is seen as 1,440,000,000
 * messages a day, not discovered in the delivery report.
 */
export function DailyReach({
  reach,
  estimate = false,
}: {
  reach: ProjectedDailyReach | undefined;
  estimate?: boolean;
}) {
  if (!reach) return <span className="muted small">—</span>;
  const perFiring = reach.recipientsPerFiring;
  return (
    <div className="reach" aria-label="projected daily reach">
      {reach.recipientsPerDay === null ? (
        <span className="muted">Unknown: the campaign's list is gone.</span>
      ) : (
        <>
          <strong data-reach="recipientsPerDay">{fmtInt(reach.recipientsPerDay)}</strong> recipients a day
          {estimate ? ' (about)' : ''}
        </>
      )}
      <div className="small muted">
        <span data-reach="firingsPerDay">{fmtRate(reach.firingsPerDay)}</span> firing(s) a day
        {perFiring !== null && (
          <>
            {' '}
            × <span data-reach="recipientsPerFiring">{fmtInt(perFiring)}</span> recipients in the list
          </>
        )}
      </div>
    </div>
  );
}
