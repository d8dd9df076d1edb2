import { useState } from 'react';
import { api } from '../api/client';
import type { Task } from '../api/types';
import { useNow } from '../hooks';
import { countdownText } from '../lib/countdown';
import { fmtInt } from '../lib/format';

/**
 * The undo window: a broadcast created to start now waits a few seconds
 * (tasks.undoGraceMs) in SCHEDULED before anything is sent. This counts
 * down to its send time with a one-click Cancel (no second question: the
 * window is short, and cancelling is the safe way out). Once the server
 * has the cancel, the page's next read shows CANCELLED and this goes away.
 */
export function SendCountdown({ task, onCancelled }: { task: Task; onCancelled: () => void }) {
  // A quarter second: the seconds shown change on time, not up to a second late.
  const now = useNow(250);
  const [cancelling, setCancelling] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  const cancel = async () => {
    setCancelling(true);
    setRefusal(null);
    try {
      await api('POST', `/api/v1/tasks/${task.id}/cancel`);
      onCancelled();
    } catch (e) {
      // Too late (it started meanwhile) or refused: say so; the page shows the state it is in.
      setRefusal((e as Error).message);
      setCancelling(false);
    }
  };

  return (
    <div className="countdown" role="timer" aria-live="off" aria-label="send countdown">
      <div>
        <div className="countdown-text">{cancelling ? 'Cancelling…' : countdownText(task.sendAt, now)}</div>
        <div className="small muted">
          to {fmtInt(task.listCount)} recipients. Cancel before then and nothing is sent.
        </div>
        {refusal && (
          <div className="small error-text" role="alert">
            {refusal}
          </div>
        )}
      </div>
      <button className="danger" onClick={cancel} disabled={cancelling}>
        Cancel broadcast
      </button>
    </div>
  );
}
