import { useRef, useState } from 'react';
import { ApiError, upload, type UploadHandle } from '../api/client';
import type { ListMeta } from '../api/types';
import { fmtBytes, fmtInt } from '../lib/format';
import { Bar } from './bits';

/** The content type a file is sent as: CSV and text lists are converted by the server, anything else is a binary list. */
export function contentTypeOf(file: File): string {
  const name = file.name.toLowerCase();
  if (name.endsWith('.csv')) return 'text/csv';
  if (name.endsWith('.txt')) return 'text/plain';
  return 'application/octet-stream';
}

/**
 * Uploads a recipient list for the account with a progress bar, then shows
 * what the server counted (recipients, bad lines). The error of a refused
 * list (bad format, too many bad lines) is shown here, beside the file.
 */
export function ListUpload({
  accountId,
  onUploaded,
  error,
}: {
  accountId: string;
  onUploaded: (list: ListMeta | null) => void;
  error?: string;
}) {
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [list, setList] = useState<ListMeta | null>(null);
  const [uploadError, setUploadError] = useState<string | undefined>();
  const handle = useRef<UploadHandle<ListMeta> | null>(null);

  const start = async (file: File) => {
    handle.current?.abort();
    setList(null);
    onUploaded(null);
    setUploadError(undefined);
    setProgress({ sent: 0, total: file.size });
    const current = upload<ListMeta>(
      `/api/v1/lists?accountId=${encodeURIComponent(accountId)}`,
      file,
      contentTypeOf(file),
      (sent, total) => setProgress({ sent, total }),
    );
    handle.current = current;
    try {
      const meta = await current.done;
      // The last progress event may come before the final bytes are counted: the upload is whole now.
      setProgress({ sent: file.size, total: file.size });
      setList(meta);
      onUploaded(meta);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'ABORTED') return;
      setUploadError(describe(e as Error));
    } finally {
      if (handle.current === current) handle.current = null;
    }
  };

  const shown = uploadError ?? error;
  const uploading = handle.current !== null && list === null && uploadError === undefined;
  return (
    <div className="upload">
      <input
        id="listFile"
        type="file"
        accept=".csv,.txt,.hrl,application/octet-stream,text/csv,text/plain"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void start(file);
        }}
      />
      {progress && (
        <div className="upload-progress">
          <Bar
            label="upload progress"
            segments={[
              { fraction: progress.total > 0 ? progress.sent / progress.total : 1, tone: list ? 'online' : 'neutral' },
            ]}
            status={list ? 'done' : 'running'}
          />
          <span className="small muted">
            {fmtBytes(progress.sent)} of {fmtBytes(progress.total)}
            {uploading && progress.sent >= progress.total && ' · checking the list…'}
          </span>
          {uploading && (
            <button type="button" className="link" onClick={() => handle.current?.abort()}>
              cancel upload
            </button>
          )}
        </div>
      )}
      {list && (
        <div className="upload-result" data-list-id={list.id}>
          List <code>{list.id}</code>: <strong>{fmtInt(list.count)}</strong> recipients
          {list.import && list.import.bad.total > 0 && (
            <span className="muted"> · {fmtInt(list.import.bad.total)} bad line(s) skipped</span>
          )}
        </div>
      )}
      {shown && (
        <div className="field-error" role="alert" data-field="listId">
          {shown}
        </div>
      )}
    </div>
  );
}

function describe(error: Error): string {
  if (!(error instanceof ApiError)) return error.message;
  const bad = error.details.bad as Record<string, number> | undefined;
  if (error.code === 'LIST_TOO_MANY_BAD_LINES' && bad) {
    const reasons = Object.entries(bad)
      .filter(([k, v]) => k !== 'total' && v > 0)
      .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`)
      .join(', ');
    return `${error.message} (${reasons})`;
  }
  return `${error.message}${error.code.startsWith('LIST_') ? ` [${error.code}]` : ''}`;
}
