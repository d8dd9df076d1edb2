import type { ReactNode } from 'react';
import type { TaskState } from '../api/types';
import type { StageStatus } from '../lib/stages';
import { barValueNow } from '../lib/format';
import { operatorMessage } from '../lib/operator-words';

/** Small shared pieces: state badges, bars, field wrappers, notices. */

export function StateBadge({ state }: { state: TaskState | string }) {
  return <span className={`badge state-${state.toLowerCase()}`}>{state}</span>;
}

/** A horizontal bar; `segments` stack left to right (fractions of the whole). Null fraction: indeterminate. */
export function Bar({
  segments,
  status,
  label,
}: {
  segments: { fraction: number | null; tone: string; title?: string }[];
  status?: StageStatus;
  label: string;
}) {
  // Only a running bar moves: a waiting, paused or stopped one with nothing to measure stays still and empty.
  const indeterminate = segments.some((s) => s.fraction === null) && (status === undefined || status === 'running');
  const total = segments.reduce((sum, s) => sum + (s.fraction ?? 0), 0);
  return (
    <div
      className={`bar ${status ?? ''} ${indeterminate ? 'indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={indeterminate ? undefined : barValueNow(total)}
    >
      {segments.map((s, i) => (
        <span
          key={i}
          className={`fill ${s.tone}`}
          title={s.title}
          style={{ width: `${Math.min(1, Math.max(0, s.fraction ?? (indeterminate ? 0.3 : 0))) * 100}%` }}
        />
      ))}
    </div>
  );
}

/** A form row: label, control, hint, and the error for that field right under it. */
export function Field({
  label,
  htmlFor,
  error,
  hint,
  children,
}: {
  label: string;
  htmlFor?: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className={`field ${error ? 'has-error' : ''}`}>
      <label htmlFor={htmlFor}>{label}</label>
      <div className="control">
        {children}
        {hint && !error && <div className="hint">{hint}</div>}
        {error && (
          <div className="field-error" role="alert" data-field={htmlFor}>
            {error}
          </div>
        )}
      </div>
    </div>
  );
}

/** Says plainly that a control exists in the design but not yet in this Herald. */
export function NotYet({ children }: { children: ReactNode }) {
  return <span className="not-yet">Not available yet: {children}</span>;
}

export function ErrorBanner({ error }: { error: Error | undefined | null }) {
  if (!error) return null;
  const code = (error as { code?: string }).code;
  const details = (error as { details?: Record<string, unknown> }).details;
  // An API refusal is said in the operator's words (lib/operator-words.ts); another error as it is.
  const said =
    code !== undefined && details !== undefined
      ? operatorMessage({ code, message: error.message, field: (error as { field?: string }).field, details })
      : error.message;
  return (
    <div className="banner error" role="alert">
      {code && <strong>{code}</strong>} {said}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}
