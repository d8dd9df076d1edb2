import { Field } from './bits';
import { DATE_TIME_PLACEHOLDER } from '../lib/datetime-input';
import type { BroadcastForm, FieldErrors } from '../lib/broadcast-form';

/**
 * The new-broadcast form's Delivery panel: when it is sent, its priority, how long it stays valid, its speed
 * and pre-delivery. `set` is the form's setter (it also drops a stale preview and re-checks a tried form).
 */
export function DeliveryPanel({
  form,
  errors,
  set,
}: {
  form: BroadcastForm;
  errors: FieldErrors;
  set: <K extends keyof BroadcastForm>(name: K, value: BroadcastForm[K]) => void;
}) {
  return (
    <div className="panel">
      <h2>Delivery</h2>
      <Field label="When" error={errors.sendAt} htmlFor="sendAt">
        <div className="choices inline">
          <label className="check">
            <input type="radio" name="when" checked={form.when === 'now'} onChange={() => set('when', 'now')} /> Send
            now
          </label>
          <label className="check">
            <input type="radio" name="when" checked={form.when === 'at'} onChange={() => set('when', 'at')} /> At
          </label>
          <input
            id="sendAt"
            aria-label="Send at"
            className="datetime mono"
            placeholder={DATE_TIME_PLACEHOLDER}
            autoComplete="off"
            spellCheck={false}
            disabled={form.when !== 'at'}
            value={form.sendAt}
            onChange={(e) => set('sendAt', e.target.value)}
          />
          <span className="small muted">
            24-hour, your time zone: {Intl.DateTimeFormat().resolvedOptions().timeZone}
          </span>
        </div>
      </Field>
      <Field label="Priority" error={errors.priority}>
        <div className="choices inline">
          <label className="check">
            <input
              type="radio"
              name="priority"
              checked={form.priority === 'normal'}
              onChange={() => set('priority', 'normal')}
            />{' '}
            Normal
          </label>
          <label className="check">
            <input
              type="radio"
              name="priority"
              checked={form.priority === 'realtime'}
              onChange={() => set('priority', 'realtime')}
            />{' '}
            Real-time
            <span className="small muted"> (outranks every normal task; may pause them at a checkpoint)</span>
          </label>
        </div>
      </Field>
      <Field
        label="Duration"
        htmlFor="duration"
        error={errors.durationHours}
        hint="Hours the broadcast stays valid from its send time; offline recipients get it at login until then. Empty: the server's default."
      >
        <input
          id="duration"
          className="short"
          inputMode="decimal"
          placeholder="default"
          value={form.durationHours}
          onChange={(e) => set('durationHours', e.target.value)}
        />{' '}
        <span className="muted">hours</span>
      </Field>
      <Field
        label="Speed"
        htmlFor="speed"
        error={errors.speed}
        hint="Recipients per second, shared by every host sending it; at most the account's maximum speed. Empty: not paced."
      >
        <input
          id="speed"
          className="short"
          inputMode="numeric"
          placeholder="not paced"
          value={form.speed}
          onChange={(e) => set('speed', e.target.value)}
        />{' '}
        <span className="muted">recipients/s</span>
      </Field>
      <Field
        label="Pre-delivery"
        htmlFor="displayAt"
        error={errors.displayAt}
        hint="Delivered ahead with the display time attached, so every recipient sees it at the same second."
      >
        <div className="choices inline">
          <label className="check">
            <input type="checkbox" checked={form.preDeliver} onChange={(e) => set('preDeliver', e.target.checked)} />{' '}
            Deliver ahead; show it at
          </label>
          <input
            id="displayAt"
            aria-label="Display time"
            className="datetime mono"
            placeholder={DATE_TIME_PLACEHOLDER}
            autoComplete="off"
            spellCheck={false}
            disabled={!form.preDeliver}
            value={form.displayAt}
            onChange={(e) => set('displayAt', e.target.value)}
          />
        </div>
      </Field>
    </div>
  );
}
