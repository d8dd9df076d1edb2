import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import type { Task } from '../api/types';
import { canCommand, type TaskCommand } from '../lib/commands';
import { Link } from '../router';

/**
 * Pause, resume and cancel, enabled as the task's state allows. Cancel asks
 * once more in place (it cannot be undone); Escape or Keep it takes the
 * question back, with focus on Cancel again. Clone opens a new broadcast
 * like this one (its list, content, priority, duration and speed). The server may still refuse
 * (the state moved on meanwhile): its answer shows beside the buttons.
 */
export function TaskCommands({ task, onDone }: { task: Task; onDone: () => void }) {
  const [busy, setBusy] = useState<TaskCommand | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  // The question takes focus on its safe answer; when it goes, focus goes back to the Cancel that asked it.
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
    else if (wasConfirming.current) cancelButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const send = async (command: TaskCommand) => {
    setBusy(command);
    setMessage(null);
    try {
      await api('POST', `/api/v1/tasks/${task.id}/${command}`);
      setMessage({ tone: 'ok', text: `${command} accepted` });
      onDone();
    } catch (e) {
      setMessage({ tone: 'error', text: (e as Error).message });
    } finally {
      setBusy(null);
      setConfirming(false);
    }
  };

  return (
    <div className="commands">
      {message && (
        <span className={`small ${message.tone === 'error' ? 'error-text' : 'muted'}`} role="status">
          {message.text}
        </span>
      )}
      {task.state === 'PAUSED' ? (
        <button onClick={() => send('resume')} disabled={busy !== null || !canCommand(task.state, 'resume')}>
          {busy === 'resume' ? 'Resuming…' : 'Resume'}
        </button>
      ) : (
        <button onClick={() => send('pause')} disabled={busy !== null || !canCommand(task.state, 'pause')}>
          {busy === 'pause' ? 'Pausing…' : 'Pause'}
        </button>
      )}
      {confirming ? (
        <span
          className="confirm"
          role="alertdialog"
          aria-labelledby="cancel-question"
          onKeyDown={(event) => {
            if (event.key === 'Escape') setConfirming(false);
          }}
        >
          <span id="cancel-question">Cancel task {task.id}? It cannot be resumed.</span>
          <button className="danger" onClick={() => send('cancel')} disabled={busy !== null}>
            Yes, cancel
          </button>
          <button ref={keepButton} onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button
          ref={cancelButton}
          className="danger-outline"
          onClick={() => setConfirming(true)}
          disabled={busy !== null || !canCommand(task.state, 'cancel')}
        >
          Cancel
        </button>
      )}
      <Link className="button" to={`/new?clone=${task.id}`} title="A new broadcast like this one, at a new time">
        Clone
      </Link>
    </div>
  );
}
