import type { Task } from '../api/types';
import { MISSED_TEXT, QUIET_DURING_TEXT, windowText } from '../lib/local-time-form';
import { canaryWords, variantsWords } from '../lib/rollout-words';

/** True when the task has one of the settings this panel shows. */
export function hasDeliverySettings(task: Task): boolean {
  return (
    task.deliverAt != null ||
    task.quietHours != null ||
    task.collapseKey != null ||
    task.rollout?.canary != null ||
    task.rollout?.variants != null
  );
}

/**
 * A task's recipient-side settings, as the server stored them: local time,
 * quiet hours (its own or its account's), collapse key, canary and variants
 * with their holdout. Nothing for a task without any.
 */
export function TaskSettings({ task }: { task: Task }) {
  if (!hasDeliverySettings(task)) return null;
  const { deliverAt, quietHours, collapseKey, rollout } = task;
  return (
    <div className="panel settings">
      <h2>Delivery settings</h2>
      <dl>
        {deliverAt && (
          <>
            <dt>Local time</dt>
            <dd data-setting="local-time">
              {deliverAt.localTime} in each recipient&apos;s zone, window {windowText(deliverAt.windowMs)}; zones past
              it get it {MISSED_TEXT[deliverAt.missed]}; default zone {deliverAt.defaultTimeZone}
            </dd>
          </>
        )}
        {quietHours && (
          <>
            <dt>Quiet hours</dt>
            <dd data-setting="quiet-hours">
              {quietHours.from}–{quietHours.to}, each recipient&apos;s local time; a push inside them:{' '}
              {QUIET_DURING_TEXT[quietHours.during ?? 'hold']}
            </dd>
            <dt>Login in quiet hours</dt>
            <dd data-setting="quiet-login">
              {quietHours.atLogin === 'hold'
                ? 'a login inside quiet hours keeps the inbox for later'
                : 'a login inside quiet hours delivers the inbox'}
            </dd>
          </>
        )}
        {collapseKey && (
          <>
            <dt>Collapse key</dt>
            <dd data-setting="collapse-key">
              <code>{collapseKey}</code>: a newer broadcast with this key replaces it in offline inboxes
            </dd>
          </>
        )}
        {rollout?.canary && (
          <>
            <dt>Canary</dt>
            <dd data-setting="canary">{canaryWords(rollout.canary)}</dd>
          </>
        )}
        {rollout?.variants && (
          <>
            <dt>Variants</dt>
            <dd data-setting="variants">{variantsWords(rollout.variants, rollout.holdout)}</dd>
          </>
        )}
      </dl>
    </div>
  );
}
