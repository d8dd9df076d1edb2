import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { TERMINAL_STATES, type CanaryReport, type Task } from '../api/types';
import { canaryText, canaryUndecided, engagementRows } from '../lib/canary-words';
import { operatorMessage } from '../lib/operator-words';
import { ApiError } from '../api/client';

/** The clicks an app backend reported and the minimum click-through they are judged against. */
function CanaryEngagement({ task, canary, now }: { task: Task; canary: CanaryReport; now: number }) {
  const rows = engagementRows(task, canary, now);
  if (rows === undefined) return null;
  return (
    <dl className="canary-engagement" aria-label="Click-through">
      <dt>Clicks reported</dt>
      <dd data-engagement="clicks">{rows.clicks}</dd>
      <dt>Click-through</dt>
      <dd data-engagement="click-through">{rows.clickThrough}</dd>
      <dt>Minimum</dt>
      <dd data-engagement="minimum">{rows.minimum}</dd>
    </dl>
  );
}

/**
 * A canary task's state (report.canary), the engagement reported for it
 * (report.engagement) against its minimum click-through, and the operator's
 * two answers:
 * Promote sends the rest now (POST /api/v1/tasks/:id/promote); Abort cancels
 * the task, asked once more in place since it cannot be undone.
 */
export function CanaryPanel({ task, now, onDone }: { task: Task; now: number; onDone: () => void }) {
  const canary = task.report.canary;
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const abortButton = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) keepButton.current?.focus();
    else if (wasAsking.current) abortButton.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (canary === undefined) return null;

  const send = async (command: 'promote' | 'cancel') => {
    setBusy(true);
    setMessage(null);
    try {
      await api('POST', `/api/v1/tasks/${task.id}/${command}`);
      setMessage({
        tone: 'ok',
        text: command === 'promote' ? 'Promoted: the rest is sent.' : 'Aborted: the task is cancelled.',
      });
      onDone();
    } catch (e) {
      setMessage({ tone: 'error', text: e instanceof ApiError ? operatorMessage(e) : (e as Error).message });
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  const undecided = canaryUndecided(task, canary) && !TERMINAL_STATES.includes(task.state);
  return (
    <div className="panel canary-panel">
      <h2>Canary</h2>
      <p data-canary={canary.state} role="status">
        {canaryText(task, canary, now)}
      </p>
      <CanaryEngagement task={task} canary={canary} now={now} />
      {undecided && (
        <div className="commands">
          <button className="primary" onClick={() => send('promote')} disabled={busy}>
            Promote: send the rest
          </button>
          {asking ? (
            <span
              className="confirm"
              role="alertdialog"
              aria-labelledby="abort-question"
              onKeyDown={(event) => {
                if (event.key === 'Escape') setAsking(false);
              }}
            >
              <span id="abort-question">Abort task {task.id}? It is cancelled and the rest never gets it.</span>
              <button className="danger" onClick={() => send('cancel')} disabled={busy}>
                Yes, abort
              </button>
              <button ref={keepButton} onClick={() => setAsking(false)}>
                Keep it
              </button>
            </span>
          ) : (
            <button ref={abortButton} className="danger-outline" onClick={() => setAsking(true)} disabled={busy}>
              Abort
            </button>
          )}
        </div>
      )}
      {message && (
        <p className={`small ${message.tone === 'error' ? 'error-text' : 'muted'}`} role="status">
          {message.text}
        </p>
      )}
    </div>
  );
}
