import { QUIET_DURING_CHOICES, QUIET_DURING_TEXT, type QuietDuring } from '../lib/local-time-form';
import { Field } from './bits';

/** The quiet hours as a form holds them: both ends as typed and what a push inside them gets. */
export interface QuietHoursValue {
  quietFrom: string;
  quietTo: string;
  quietDuring: QuietDuring;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Quiet hours' two ends and, with `modes`, what a push inside them gets
 * (held to their end, or queued for the next login): the fields the
 * broadcast and campaign forms (LocalTimeFields) and an account's defaults
 * (LocalTimeDefaultsPanel) share (docs/local-time.md, "Quiet hours").
 * `idPrefix` keeps two of them on one page apart: the ids are
 * `${idPrefix}quietFrom`, `${idPrefix}quietTo`, `${idPrefix}quietDuring`.
 */
export function QuietHoursRange({
  idPrefix = '',
  value,
  errors,
  set,
  modes,
}: {
  idPrefix?: string;
  value: QuietHoursValue;
  errors: { quietFrom?: string; quietDuring?: string };
  /** The form's own setter: either form's `set` fits, as both hold these three fields. */
  set: { (name: 'quietFrom' | 'quietTo', value: string): void; (name: 'quietDuring', value: QuietDuring): void };
  modes: boolean;
}) {
  const id = (name: string) => `${idPrefix}${name}`;
  return (
    <>
      <Field
        label="Quiet from"
        htmlFor={id('quietFrom')}
        error={errors.quietFrom}
        hint="24-hour; may wrap past midnight."
      >
        <div className="choices inline">
          <input
            id={id('quietFrom')}
            className="short mono"
            placeholder="HH:MM"
            autoComplete="off"
            value={value.quietFrom}
            onChange={(e) => set('quietFrom', e.target.value)}
          />
          <label htmlFor={id('quietTo')}>until</label>
          <input
            id={id('quietTo')}
            className="short mono"
            placeholder="HH:MM"
            autoComplete="off"
            value={value.quietTo}
            onChange={(e) => set('quietTo', e.target.value)}
          />
        </div>
      </Field>
      {modes && (
        <Field label="Inside quiet hours" htmlFor={id('quietDuring')} error={errors.quietDuring}>
          <div className="choices inline" role="radiogroup" aria-label="Inside quiet hours">
            {QUIET_DURING_CHOICES.map((choice) => (
              <label className="check" key={choice}>
                <input
                  id={choice === 'hold' ? id('quietDuring') : id(`quietDuring-${choice}`)}
                  type="radio"
                  name={id('quietDuring')}
                  value={choice}
                  checked={value.quietDuring === choice}
                  onChange={() => set('quietDuring', choice)}
                />{' '}
                {capital(QUIET_DURING_TEXT[choice])}
              </label>
            ))}
          </div>
        </Field>
      )}
    </>
  );
}
