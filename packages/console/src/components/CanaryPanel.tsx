import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { TERMINAL_STATES, type CanaryReport, type Task } from '../api/types';
import { fmtInt, fmtRelative, fmtShare, fmtTime } from '../lib/format';
import { operatorMessage } from '../lib/operator-words';
import { ApiError } from '../api/client';

/** Where the canary stands, in words (docs/rollouts.md, "How it runs"). */
export function canaryText(task: Task, canary: CanaryReport, now: number): string {
  const sample = `${fmtInt(canary.sample)} recipients`;
  switch (canary.state) {
    case 'sampling':
      return task.report.delivered + task.report.offline < canary.sample
        ? `Sending to the sample of ${sample}; the rest waits.`
        : `Holding after the sample of ${sample}: judged at ${fmtTime(canary.holdUntil)} (${fmtRelative(canary.holdUntil, now)}).`;
    case 'failed':
      return `Failed: ${task.error?.code === 'CANARY_FAILED' ? task.error.message : `over a threshold (rejected ${fmtShare(canary.rejectedRatio ?? 0)}, failed ${fmtShare(canary.failedRatio ?? 0)})`}. The broadcast paused itself; nobody beyond the sample was sent anything.`;
    case 'passed':
      return `Passed: the sample of ${sample} stayed under the thresholds (rejected ${fmtShare(canary.rejectedRatio ?? 0)}, failed ${fmtShare(canary.failedRatio ?? 0)}); the rest is sent.`;
    case 'promoted':
      return `Promoted by hand after the sample of ${sample}: the rest is sent.`;
  }
}

/** A canary that may still go either way: still sampling, or paused by its failure. */
export function canaryUndecided(task: Task, canary: CanaryReport): boolean {
  return (
    (task.state === 'SENDING' && canary.state === 'sampling') || (task.state === 'PAUSED' && canary.state === 'failed')
  );
}

/**
 * A canary task's state (report.canary) with the operator's two answers:
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
