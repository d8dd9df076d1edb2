import { useState } from 'react';
import { ApiError, download } from '../api/client';
import type { Task } from '../api/types';

/**
 * "Download report": the task's delivery report as CSV (GET
 * /api/v1/tasks/:id/report), every recipient with its fate. Offered once the
 * task's list is filtered; before that the API has no report to give.
 */
export function ReportDownload({ task }: { task: Task }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ready = task.filteredListId !== null;

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await download(`/api/v1/tasks/${task.id}/report`, `task-${task.id}-report.csv`);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        onClick={() => void save()}
        disabled={!ready || busy}
        title={ready ? 'Every recipient with its fate, as CSV' : 'The list is not filtered yet'}
      >
        {busy ? 'Downloading…' : 'Download report'}
      </button>
      {error !== null && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
