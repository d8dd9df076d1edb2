import { type ApiError, query } from '../api/client';
import type { CronPreview } from '../api/types';
import { useTypedCheck } from '../hooks';
import { fmtRelative, fmtTime } from '../lib/format';

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.(
  'timeZone',
) ?? ['UTC'];

/** The IANA zones the browser knows, as suggestions for a time-zone input (list="time-zones"). */
export function TimeZoneList() {
  return (
    <datalist id="time-zones">
      {ZONES.map((z) => (
        <option key={z} value={z} />
      ))}
    </datalist>
  );
}

/** Five fire times, each in the campaign's time zone and relative to now. */
export function FireTimeList({ times, timeZone, now }: { times: string[]; timeZone: string; now: number }) {
  if (times.length === 0)
    return <p className="muted small">No upcoming fire times (disabled, or the schedule never fires again).</p>;
  return (
    <ol className="fire-times">
      {times.map((t) => {
        const at = Date.parse(t);
        return (
          <li key={t}>
            <span className="time">{fmtTime(at, timeZone)}</span> <span className="muted small">{timeZone}</span>{' '}
            <span className="muted small">({fmtRelative(at, now)})</span>
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The next five fire times of what the operator is typing, from the server
 * (GET /api/v1/campaigns/preview: the same parser and time-zone rules that
 * fire the campaign), a moment after they stop typing. A bad expression or
 * zone comes back as the server's message, for the field it names.
 */
export function useCronPreview(
  cron: string,
  timeZone: string,
): { preview?: CronPreview; error?: ApiError; checking: boolean } {
  return useTypedCheck<CronPreview>(
    cron.trim() === '' || timeZone.trim() === '' ? undefined : '/api/v1/campaigns/preview' + query({ cron, timeZone }),
  );
}
