import { useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { Task } from '../api/types';
import { BULK_CONCURRENCY, commandCounts, refusalReason, runBounded, summarize, type BulkOutcome } from '../lib/bulk';
import type { TaskCommand } from '../lib/commands';
import { ConfirmDialog } from './ConfirmDialog';

/**
 * The task list's bulk bar: "N selected", then Pause, Resume and Cancel,
 * each enabled when at least one selected task's state allows it. Cancel
 * asks first, naming how many. Every selected task gets its own request (the
 * server is the judge: a state may have moved on since the list was drawn),
 * a few at a time, and the summary names each task it refused and why.
 */
export function BulkBar({
  selected,
  onDone,
  onClear,
}: {
  selected: readonly Task[];
  onDone: () => void;
  onClear: () => void;
}) {
  const [busy, setBusy] = useState<TaskCommand | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [summary, setSummary] = useState<{ text: string; refused: boolean } | null>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const counts = commandCounts(selected.map((t) => t.state));
  const n = selected.length;
  // Selected tasks past cancelling (finished, failed, cancelled): asked about anyway, and named in the summary.
  const over = n - counts.cancel;

  const run = async (command: TaskCommand) => {
    setBusy(command);
    setSummary(null);
    const outcomes = await runBounded(
      selected.map((t) => t.id),
      BULK_CONCURRENCY,
      (id) => send(id, command),
    );
    setBusy(null);
    setConfirming(false);
    setSummary({ text: summarize(command, outcomes), refused: outcomes.some((o) => !o.ok) });
    onDone();
  };

  if (n === 0 && summary === null) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Selected tasks">
      <span className="bulk-count" aria-live="polite">
        {n} selected
      </span>
      <button onClick={() => void run('pause')} disabled={busy !== null || counts.pause === 0}>
        {busy === 'pause' ? 'Pausing…' : 'Pause'}
      </button>
      <button onClick={() => void run('resume')} disabled={busy !== null || counts.resume === 0}>
        {busy === 'resume' ? 'Resuming…' : 'Resume'}
      </button>
      <button
        ref={cancelButton}
        className="danger-outline"
        onClick={() => setConfirming(true)}
        disabled={busy !== null || counts.cancel === 0}
      >
        Cancel…
      </button>
      {n > 0 && (
        <button onClick={onClear} disabled={busy !== null}>
          Clear selection
        </button>
      )}
      {summary && (
        <span className={`bulk-summary small ${summary.refused ? 'error-text' : 'muted'}`} role="status">
          {summary.text}
        </span>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Cancel ${n} ${n === 1 ? 'task' : 'tasks'}?`}
          confirmLabel={`Yes, cancel ${n}`}
          busyLabel="Cancelling…"
          keepLabel="Keep them"
          busy={busy !== null}
          onConfirm={() => void run('cancel')}
          onClose={() => setConfirming(false)}
          opener={cancelButton}
        >
          <p>
            A cancelled task cannot be resumed: what it has not sent yet is never sent.
            {over > 0 &&
              ` ${over} of them ${over === 1 ? 'is' : 'are'} already over: the summary will name ${over === 1 ? 'it' : 'them'}.`}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** One task's command: its outcome, never a throw (the rest go on either way). */
async function send(id: number, command: TaskCommand): Promise<BulkOutcome> {
  try {
    await api('POST', `/api/v1/tasks/${id}/${command}`);
    return { id, ok: true };
  } catch (e) {
    const error = e instanceof ApiError ? e : new ApiError(0, 'NETWORK', (e as Error).message);
    return { id, ok: false, reason: refusalReason(id, error) };
  }
}
