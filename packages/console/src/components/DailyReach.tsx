import type { ProjectedDailyReach } from '../api/types';
import { fmtInt } from '../lib/format';

/** A weekday schedule fires 5/7 times a day on average: keep two decimals for such rates. */
const fmtRate = (n: number) => (Number.isInteger(n) ? fmtInt(n) : n.toFixed(2));

/**
 * What a campaign sends in a day: shown before it is enabled, so a schedule
 * that fires every minute to a million people is seen as 1,440,000,000
 * messages a day, not discovered in the delivery report.
 */
export function DailyReach({ reach, estimate = false }: { reach: ProjectedDailyReach | undefined; estimate?: boolean }) {
  if (!reach) return <span className="muted small">—</span>;
  return (
    <div className="reach" aria-label="projected daily reach">
      <strong data-reach="recipientsPerDay">{fmtInt(reach.recipientsPerDay)}</strong> recipients a day{estimate ? ' (about)' : ''}
      <div className="small muted">
        <span data-reach="firingsPerDay">{fmtRate(reach.firingsPerDay)}</span> firing(s) a day × <span data-reach="recipientsPerFiring">{fmtInt(reach.recipientsPerFiring)}</span> recipients in the list
      </div>
    </div>
  );
}
