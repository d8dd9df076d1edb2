import type { NoResend } from '../api/types';
import { Field } from './bits';

/** What each scope means to an operator (docs/campaigns.md, "No-resend scope"). */
const SCOPES: { value: NoResend['scope']; label: string; hint: string }[] = [
  {
    value: 'content',
    label: 'Once per content',
    hint: 'Nobody gets the same text twice: after its first firing, unchanged content reaches only new recipients.',
  },
  {
    value: 'firing',
    label: 'Every firing',
    hint: 'Each firing is new content (a daily digest): everyone, every time.',
  },
  { value: 'window', label: 'At most once per window', hint: 'Not the same text twice within the window.' },
];

/** The campaign form's no-resend scope: a select, and the window in days for scope 'window'. */
export function NoResendField({
  scope,
  windowDays,
  onScope,
  onWindowDays,
  error,
}: {
  scope: NoResend['scope'];
  windowDays: string;
  onScope: (scope: NoResend['scope']) => void;
  onWindowDays: (days: string) => void;
  error?: string | undefined;
}) {
  return (
    <Field label="Resend" htmlFor="noResendScope" error={error} hint={SCOPES.find((s) => s.value === scope)?.hint}>
      <select id="noResendScope" value={scope} onChange={(e) => onScope(e.target.value as NoResend['scope'])}>
        {SCOPES.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
      {scope === 'window' && (
        <>
          {' '}
          <input
            id="noResendWindow"
            aria-label="Window in days"
            className="short"
            value={windowDays}
            onChange={(e) => onWindowDays(e.target.value)}
          />{' '}
          <span className="muted">days</span>
        </>
      )}
    </Field>
  );
}
